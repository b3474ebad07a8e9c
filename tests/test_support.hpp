#pragma once
// Helpers shared by the doctest suites.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

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

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "readbench-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path))
      out.push_back(e.path().filename().string());
    return out;
  }
};

}  // namespace readbench::test
