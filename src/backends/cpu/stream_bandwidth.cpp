#include "backends/cpu/stream_bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/parallel_fill.hpp"
#include "core/aligned_buffer.hpp"
#include "core/elapsed.hpp"
#include "core/interrupt.hpp"

namespace readbench::cpu {

namespace {

using Clock = std::chrono::steady_clock;

// Sums are stored here so the compiler cannot drop the reads that produce them.
volatile std::uint64_t g_sink = 0;

}  // namespace

std::int64_t ceiling_buffer_bytes(std::int64_t cache_bytes, std::int64_t page) {
  // Far past any cache, within memory.
  const std::int64_t bytes =
      std::clamp<std::int64_t>(4 * cache_bytes, std::int64_t(256) << 20, std::int64_t(4) << 30);
  return bytes / (2 * page) * (2 * page);
}

Bandwidths measure_host_bandwidths(int threads) {
  const std::int64_t bytes =
      ceiling_buffer_bytes(last_level_cache_bytes(), std::int64_t(page_size()));
  AlignedBuffer buf{static_cast<std::size_t>(bytes), "the read-ceiling buffer"};
  parallel_fill(buf.data(), bytes, threads, 1);
  throw_if_interrupted();
  const auto* words = buf.as<std::uint64_t>();
  const std::int64_t n = bytes / 8;

  Bandwidths bw;
  bw.buffer_bytes = bytes;
  double best_read = 1e30, best_copy = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    throw_if_interrupted();
    const auto t0 = Clock::now();
    std::uint64_t sum = 0;
#pragma omp parallel for simd num_threads(threads) schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) sum += words[i];
    best_read = std::min(best_read, seconds_since(t0));
    g_sink = g_sink + sum;
  }
  const std::int64_t half = bytes / 2;
  const std::int64_t chunk = 1 << 20;
  for (int pass = 0; pass < 3; ++pass) {
    throw_if_interrupted();
    const auto t0 = Clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t off = 0; off < half; off += chunk)
      std::memcpy(buf.data() + half + off, buf.data() + off,
                  std::size_t(std::min(chunk, half - off)));
    best_copy = std::min(best_copy, seconds_since(t0));
  }
  bw.read_gbps = double(bytes) / best_read / 1e9;
  bw.copy_gbps = 2.0 * double(half) / best_copy / 1e9;
  return bw;
}

}  // namespace readbench::cpu
