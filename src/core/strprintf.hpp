#pragma once
// printf into a string of the length it needs; the compiler checks the format against the
// arguments.
#include <string>

namespace readbench {

__attribute__((format(printf, 1, 2))) std::string strprintf(const char* format, ...);

}  // namespace readbench
