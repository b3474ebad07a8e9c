#include "backends/cpu/cache_flusher.hpp"

#include <algorithm>
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
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;
}

// CLFLUSH's line size (CPUID 1, EBX bits 15:8, in 8-byte units).
std::size_t line_bytes() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  const std::size_t bytes = __get_cpuid(1, &a, &b, &c, &d) != 0 ? ((b >> 8) & 0xffu) * 8 : 0;
  return bytes != 0 ? bytes : 64;
}

__attribute__((target("clflushopt"))) void evict_clflushopt(std::uintptr_t first, std::size_t lines,
                                                            std::size_t step) {
  for (std::size_t i = 0; i < lines; ++i) _mm_clflushopt(reinterpret_cast<void*>(first + i * step));
  _mm_sfence();  // clflushopt is ordered by a store fence only
}

void evict_clflush(std::uintptr_t first, std::size_t lines, std::size_t step) {
  for (std::size_t i = 0; i < lines; ++i) _mm_clflush(reinterpret_cast<void*>(first + i * step));
  _mm_mfence();
}

const bool kClflushopt = has_clflushopt();
const std::size_t kLine = line_bytes();

void evict(std::uintptr_t first, std::size_t lines) {
  if (kClflushopt)
    evict_clflushopt(first, lines, kLine);
  else
    evict_clflush(first, lines, kLine);
}
#elif defined(__aarch64__)
// The smallest data cache line of any cache (CTR_EL0.DminLine, log2 of 4-byte words).
std::size_t line_bytes() {
  std::uint64_t ctr = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return std::size_t(4) << ((ctr >> 16) & 0xfu);
}

const std::size_t kLine = line_bytes();

void evict(std::uintptr_t first, std::size_t lines) {
  for (std::size_t i = 0; i < lines; ++i)
    asm volatile("dc civac, %0" : : "r"(first + i * kLine) : "memory");
  asm volatile("dsb ish" : : : "memory");
}
#endif

}  // namespace

std::string_view flush_method() {
#if defined(__x86_64__)
  return kClflushopt ? "clflushopt" : "clflush";
#elif defined(__aarch64__)
  return "dc civac";
#else
  return "write";
#endif
}

void evict_lines(std::span<const ByteRange> ranges, int threads) {
#if defined(__x86_64__) || defined(__aarch64__)
#pragma omp parallel num_threads(threads)
  {
    const auto t = std::size_t(omp_get_thread_num()), n = std::size_t(omp_get_num_threads());
    for (const ByteRange& r : ranges) {
      if (r.bytes == 0) continue;
      const auto begin = reinterpret_cast<std::uintptr_t>(r.data);
      const std::uintptr_t first = begin / kLine * kLine;
      const std::size_t lines = (begin + r.bytes - first + kLine - 1) / kLine;
      const std::size_t lo = lines * t / n, hi = lines * (t + 1) / n;
      if (hi > lo) evict(first + lo * kLine, hi - lo);
    }
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
