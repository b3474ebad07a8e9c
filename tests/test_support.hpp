#pragma once
// Helpers shared by the doctest suites.
#include <string>

#include "core/errors.hpp"

namespace readbench::test {

// The message of the `Error` that `f` throws, or "" when it throws none. Any other exception
// escapes, so the test fails on it rather than reading it as a missing error.
template <class Error = InputError, class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace readbench::test
