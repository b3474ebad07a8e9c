// The CPU's cold-cache flush: evicting the lines of the timed call's buffers changes none of
// their bytes, whatever the ranges' alignment and the threads, and the backend reports how it
// flushes.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/cache_flusher.hpp"

using namespace readbench;

namespace {
std::vector<unsigned char> pattern(std::size_t n) {
  std::vector<unsigned char> v(n);
  std::uint32_t x = 12345;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<unsigned char>(x >> 24);
  }
  return v;
}
}  // namespace

TEST_CASE("the flush method is the processor's eviction instruction where it has one") {
  const std::string method(cpu::flush_method());
#if defined(__x86_64__)
  CHECK((method == "clflushopt" || method == "clflush"));
#elif defined(__aarch64__)
  CHECK(method == "dc civac");
#else
  CHECK(method == "write");
#endif
}

TEST_CASE("evicting lines leaves every byte as it was, whatever the ranges and threads") {
  const std::size_t n = (1 << 20) + 13;
  const std::vector<unsigned char> expected = pattern(n);
  std::vector<unsigned char> buf = expected;
  const unsigned char* p = buf.data();
  const std::vector<cpu::ByteRange> ranges = {
      {p, n},             // the whole buffer, its start wherever the allocator put it
      {p + 3, 1000},      // inside a line to inside another
      {p + 64, 64},       // one line, maybe straddling two
      {p + n - 1, 1},     // the last byte
      {p + 100, 0},       // empty
      {p + 4096, 70000},  // overlapping the first
  };
  for (const int threads : {1, 2, 3}) {  // 3: lines that do not split evenly
    CAPTURE(threads);
    if (cpu::flush_method() != "write") cpu::evict_lines(ranges, threads);
    cpu::CacheFlusher flusher(threads);
    flusher.flush(ranges);
    CHECK(buf == expected);
  }
  if (cpu::flush_method() != "write") cpu::evict_lines({}, 2);  // nothing to evict
}

TEST_CASE("the CPU backend reports how it makes samples cold") {
  const auto backend = make_cpu_backend(1);
  const std::string flush = backend->details().cold_flush;
  CHECK(flush.find(std::string(cpu::flush_method())) != std::string::npos);
}
