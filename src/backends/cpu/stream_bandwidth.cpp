#include "backends/cpu/stream_bandwidth.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/interrupt.hpp"

namespace readbench::cpu {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t parse_cache_size(const std::string& text) {
  std::int64_t v = 0;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    v = v * 10 + (text[i++] - '0');
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) v *= 1024;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) v *= 1024 * 1024;
  return v;
}

// Multi-threaded fill, so pages are touched by the threads that later read them. The first
// touch of gigabytes can take seconds: a signal skips the chunks not yet filled (nothing may
// leave a parallel region by throwing), and the callers throw or drop the sample after it.
void parallel_fill(std::byte* p, std::int64_t n, int threads, unsigned char value) {
  const std::int64_t chunk = 1 << 20;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t off = 0; off < n; off += chunk) {
    if (interrupt_signal() != 0) continue;
    std::memset(p + off, value, std::size_t(std::min(chunk, n - off)));
  }
}

// Sums are stored here so the compiler cannot drop the reads that produce them.
volatile std::uint64_t g_sink = 0;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

LastLevelCache read_last_level_cache(const std::filesystem::path& cpu_dir) {
  // Every instance of the highest cache level counts (one per socket, or per CCD on some
  // processors): a flush that covers only cpu0's would leave the others warm.
  namespace fs = std::filesystem;
  int top_level = 0;
  std::map<std::string, std::int64_t> instances;  // shared_cpu_list -> size, at top_level
  std::error_code ec;
  for (const auto& cpu : fs::directory_iterator(cpu_dir, ec)) {
    const std::string name = cpu.path().filename().string();
    if (name.rfind("cpu", 0) != 0 || name.size() < 4 ||
        !std::isdigit(static_cast<unsigned char>(name[3])))
      continue;
    for (int index = 0; index < 8; ++index) {
      const fs::path dir = cpu.path() / "cache" / ("index" + std::to_string(index));
      std::ifstream level_file(dir / "level"), size_file(dir / "size"),
          shared_file(dir / "shared_cpu_list");
      int level = 0;
      std::string size_text, shared;
      if (!(level_file >> level) || !(size_file >> size_text)) continue;
      std::getline(shared_file, shared);
      if (level > top_level) {
        top_level = level;
        instances.clear();
      }
      if (level == top_level)
        instances[shared.empty() ? name : shared] = parse_cache_size(size_text);
    }
  }
  std::int64_t total = 0;
  for (const auto& [cpus, bytes] : instances) total += bytes;
  if (total > 0) return {total, "sysfs"};
  // 32 MiB: more than the last level of most client and many server parts, so a flush of
  // 1.25x it still leaves the caches cold on most; the ceilings' buffer is 256 MiB anyway.
  return {std::int64_t(32) << 20, "assumed 32 MiB: sysfs lists no caches"};
}

const LastLevelCache& last_level_cache() {
  static const LastLevelCache cache = read_last_level_cache("/sys/devices/system/cpu");
  return cache;
}

std::int64_t last_level_cache_bytes() {
  return last_level_cache().bytes;
}

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

CacheFlusher::CacheFlusher(int threads)
    : buffer_(std::size_t(last_level_cache_bytes() * 5 / 4), "the cache-flush buffer"),
      threads_(threads) {
  parallel_fill(buffer_.data(), std::int64_t(buffer_.size()), threads_, 0);
}

void CacheFlusher::flush() {
  // A different value each time: a write of what is already there could be elided.
  parallel_fill(buffer_.data(), std::int64_t(buffer_.size()), threads_, ++round_);
}

}  // namespace readbench::cpu
