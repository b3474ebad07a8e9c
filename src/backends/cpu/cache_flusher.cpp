#include "backends/cpu/cache_flusher.hpp"

#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#include <omp.h>

#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/parallel_fill.hpp"

namespace readbench::cpu {

namespace {

#if defined(__x86_64__)
bool has_clflushopt() {
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;
  }();
  return has;
}

// CLFLUSH's line size (CPUID 1, EBX bits 15:8, in 8-byte units).
std::size_t line_bytes() {
  static const std::size_t bytes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    const std::size_t n = __get_cpuid(1, &a, &b, &c, &d) != 0 ? ((b >> 8) & 0xffu) * 8 : 0;
    return n != 0 ? n : std::size_t(64);
  }();
  return bytes;
}

__attribute__((target("clflushopt"))) void evict_clflushopt(std::uintptr_t first, std::size_t lines,
                                                            std::size_t step) {
  for (std::size_t i = 0; i < lines; ++i) _mm_clflushopt(reinterpret_cast<void*>(first + i * step));
}

void evict_clflush(std::uintptr_t first, std::size_t lines, std::size_t step) {
  for (std::size_t i = 0; i < lines; ++i) _mm_clflush(reinterpret_cast<void*>(first + i * step));
}

// Issues the evictions of `lines` lines from `first`; complete only after fence().
void evict(std::uintptr_t first, std::size_t lines) {
  if (has_clflushopt())
    evict_clflushopt(first, lines, line_bytes());
  else
    evict_clflush(first, lines, line_bytes());
}

void fence() {
  _mm_mfence();  // orders clflush and clflushopt alike
}
#elif defined(__aarch64__)
// The smallest data cache line of any cache (CTR_EL0.DminLine, log2 of 4-byte words).
std::size_t line_bytes() {
  static const std::size_t bytes = [] {
    std::uint64_t ctr = 0;
    asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
    return std::size_t(4) << ((ctr >> 16) & 0xfu);
  }();
  return bytes;
}

void evict(std::uintptr_t first, std::size_t lines) {
  const std::size_t step = line_bytes();
  for (std::size_t i = 0; i < lines; ++i)
    asm volatile("dc civac, %0" : : "r"(first + i * step) : "memory");
}

void fence() {
  asm volatile("dsb ish" : : : "memory");
}
#endif

}  // namespace

LineSlice line_slice(const ByteRange& r, std::size_t line, int thread, int threads) {
  if (r.bytes == 0 || line == 0 || threads <= 0) return {};
  const auto begin = reinterpret_cast<std::uintptr_t>(r.data);
  const std::uintptr_t first = begin / line * line;
  const std::size_t lines = (begin + r.bytes - first + line - 1) / line;
  const auto t = std::size_t(thread), n = std::size_t(threads);
  const std::size_t lo = lines * t / n, hi = lines * (t + 1) / n;
  return {first + lo * line, hi - lo};
}

std::string_view flush_method() {
#if defined(__x86_64__)
  return has_clflushopt() ? "clflushopt" : "clflush";
#elif defined(__aarch64__)
  return "dc civac";
#else
  return "write";
#endif
}

void evict_lines(std::span<const ByteRange> ranges, int threads) {
#if defined(__x86_64__) || defined(__aarch64__)
  const std::size_t line = line_bytes();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    for (const ByteRange& r : ranges) {
      const LineSlice s = line_slice(r, line, t, n);
      if (s.lines > 0) evict(s.first, s.lines);
    }
    fence();  // this thread's evictions are complete before the region ends
  }
#else
  (void)ranges;
  (void)threads;
#endif
}

CacheFlusher::CacheFlusher(int threads)
    : buffer_(flush_method() == "write" ? std::size_t(last_level_cache_bytes() * 5 / 4) : 0,
              "the cache-flush buffer"),
      threads_(threads) {
  if (buffer_.size() > 0) parallel_fill(buffer_.data(), std::int64_t(buffer_.size()), threads_, 0);
}

void CacheFlusher::flush(std::span<const ByteRange> ranges) {
  if (buffer_.size() == 0) {
    evict_lines(ranges, threads_);
    return;
  }
  // A different value each time: a write of what is already there could be elided.
  parallel_fill(buffer_.data(), std::int64_t(buffer_.size()), threads_, ++round_);
}

}  // namespace readbench::cpu
