#include "core/strprintf.hpp"

#include <cstdarg>
#include <cstdio>

namespace readbench {

std::string strprintf(const char* format, ...) {
  // Measured first, then written: no length is cut short (a %s of a long reason, %.0f of 1e300).
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

}  // namespace readbench
