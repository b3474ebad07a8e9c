#pragma once
// Host memory ceilings and the cold-cache flush.
#include <cstdint>
#include <filesystem>
#include <string>

#include "backends/backend.hpp"
#include "core/aligned_buffer.hpp"

namespace readbench::cpu {

// The largest cache level, every instance of it counted, and where the figure came from.
struct LastLevelCache {
  std::int64_t bytes = 0;
  std::string source;  // "sysfs", or the assumption made and why
};

// Reads cpu*/cache/index*/{level,size,shared_cpu_list} under `cpu_dir` (sysfs:
// /sys/devices/system/cpu). x86 kernels fill it from CPUID; aarch64 kernels only from the
// firmware's tables (ACPI PPTT or the device tree), which some machines and most emulators
// leave empty: then 32 MiB is assumed, and the source says so.
LastLevelCache read_last_level_cache(const std::filesystem::path& cpu_dir);

// read_last_level_cache of this machine's sysfs.
const LastLevelCache& last_level_cache();
std::int64_t last_level_cache_bytes();

// Bytes of the read-ceiling buffer for a last-level cache of `cache_bytes` on a kernel with
// `page`-byte pages: 4x the cache, at least 256 MiB, at most 4 GiB, in whole pairs of pages,
// so both halves of the copy start on a page.
std::int64_t ceiling_buffer_bytes(std::int64_t cache_bytes, std::int64_t page);

// Read ceiling: a vectorised, multi-threaded sum over a buffer of 4x the last-level cache;
// copy: memcpy between its halves (bytes read plus written). Best of several passes. Throws
// Interrupted (core/interrupt.hpp) between passes once a signal asks the run to stop.
Bandwidths measure_host_bandwidths(int threads);

// Writes over a buffer larger than the last-level cache so the next read starts cold.
class CacheFlusher {
 public:
  explicit CacheFlusher(int threads);
  void flush();

 private:
  AlignedBuffer buffer_;
  int threads_;
  unsigned char round_ = 0;
};

}  // namespace readbench::cpu
