#pragma once
// Helpers shared by the doctest suites.
#include <string>

#include "core/errors.hpp"
#include "core/shape.hpp"

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

// A shape from its five numbers: B, Hq, Hkv, D, S.
inline Shape make_shape(int batch, int q_heads, int kv_heads, int head_dim, int block_size) {
  Shape s;
  s.batch = batch;
  s.q_heads = q_heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.block_size = block_size;
  return s;
}

}  // namespace readbench::test
