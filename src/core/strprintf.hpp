#pragma once
// printf into a string of the length it needs; the compiler checks the format against the
// arguments.
#include <string>

namespace readbench {

__attribute__((format(printf, 1, 2))) std::string strprintf(const char* format, ...);

// A number to three significant digits (%.3g), for messages.
inline std::string three_digits(double v) {
  return strprintf("%.3g", v);
}

}  // namespace readbench
