#include "core/printable.hpp"

#include <cstdio>

namespace readbench {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(u));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace readbench
