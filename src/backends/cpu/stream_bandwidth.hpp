#pragma once
// Host memory ceilings and the cold-cache flush.
#include <cstdint>

#include "backends/backend.hpp"
#include "core/aligned_buffer.hpp"

namespace readbench::cpu {

// Bytes of the largest cache level reported by the OS (sysfs), or 32 MiB when unknown.
std::int64_t last_level_cache_bytes();

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
