// The CPU's cold-cache flush: the eviction's split of cache lines over threads covers each line
// of a range exactly once, a sample's K/V ranges are the blocks its replicas' tables name (or
// whole pools), evicting changes no byte, and the backend reports how it flushes.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/cache_flusher.hpp"
#include "backends/cpu/sample_ranges.hpp"
#include "core/host_workload.hpp"
#include "test_support.hpp"

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

TEST_CASE("the threads' shares of a range's cache lines are disjoint and cover each line once") {
  alignas(256) static unsigned char base[8192];
  for (const std::size_t line : {32, 64, 128}) {
    for (const std::size_t start : {0, 1, 31, 63, 64, 100}) {
      for (const std::size_t bytes : {0, 1, 2, 63, 64, 65, 129, 1000, 4000}) {
        for (const int threads : {1, 2, 3, 5, 64}) {
          CAPTURE(line);
          CAPTURE(start);
          CAPTURE(bytes);
          CAPTURE(threads);
          const cpu::ByteRange r{base + start, bytes};
          const auto a = reinterpret_cast<std::uintptr_t>(base + start);
          std::set<std::uintptr_t> expected;  // every line holding a byte of r
          for (std::size_t i = 0; i < bytes; ++i) expected.insert((a + i) / line * line);
          std::multiset<std::uintptr_t> got;
          for (int t = 0; t < threads; ++t) {
            const cpu::LineSlice s = cpu::line_slice(r, line, t, threads);
            CHECK(s.first % line == 0);
            for (std::size_t i = 0; i < s.lines; ++i) got.insert(s.first + i * line);
          }
          CHECK(got.size() == expected.size());  // no line twice
          CHECK(std::set<std::uintptr_t>(got.begin(), got.end()) == expected);
        }
      }
    }
  }
}

TEST_CASE("a sample's K/V ranges are the blocks its replicas' tables name, or the whole pools") {
  Workload w;
  w.shape = test::make_shape(2, 4, 2, 8, 4);
  w.dtype = DType::f32;
  w.length = 10;  // 3 blocks a sequence, the last one partly used
  w.replicas = 3;
  w.seed = 5;
  const HostWorkload h = make_host_workload(w);
  const std::size_t block_bytes = 4 * 2 * 8 * sizeof(float);
  const std::byte* k = h.k_pool.data();
  const std::byte* v = h.v_pool.data();
  for (const int used : {1, 2}) {
    CAPTURE(used);
    const std::vector<cpu::ByteRange> ranges = cpu::kv_block_ranges(h, used, k, v);
    std::set<std::size_t> k_blocks, v_blocks, named;
    for (const cpu::ByteRange& r : ranges) {
      CHECK(r.bytes == block_bytes);
      const auto* p = static_cast<const std::byte*>(r.data);
      const bool in_k = p >= k && p + r.bytes <= k + h.k_pool.size();
      const bool in_v = p >= v && p + r.bytes <= v + h.v_pool.size();
      REQUIRE(in_k != in_v);
      const std::size_t offset = std::size_t(p - (in_k ? k : v));
      CHECK(offset % block_bytes == 0);
      (in_k ? k_blocks : v_blocks).insert(offset / block_bytes);
    }
    for (int r = 0; r < used; ++r)
      for (int i = 0; i < 2 * 3; ++i) named.insert(std::size_t(h.table(r)[i]));
    CHECK(named.size() == std::size_t(used) * 6);  // replicas own distinct blocks
    CHECK(k_blocks == named);
    CHECK(v_blocks == named);
  }
  const std::vector<cpu::ByteRange> all = cpu::kv_block_ranges(h, 3, k, v);
  REQUIRE(all.size() == 2);
  CHECK(all[0].data == k);
  CHECK(all[0].bytes == h.k_pool.size());
  CHECK(all[1].data == v);
  CHECK(all[1].bytes == h.v_pool.size());
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
}

TEST_CASE(
    "the CPU backend names its flush, the processor's eviction instruction where it has one") {
  const std::string method(cpu::flush_method());
#if defined(__x86_64__)
  CHECK((method == "clflushopt" || method == "clflush"));
#elif defined(__aarch64__)
  CHECK(method == "dc civac");
#else
  CHECK(method == "write");
#endif
  const auto backend = make_cpu_backend(1);
  CHECK(backend->details().cold_flush.find(method) != std::string::npos);
}
