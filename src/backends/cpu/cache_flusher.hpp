#pragma once
// The cold-cache flush.
#include <cstddef>
#include <span>
#include <string_view>

#include "core/aligned_buffer.hpp"

namespace readbench::cpu {

// A span of host memory a timed call reads or writes.
struct ByteRange {
  const void* data = nullptr;
  std::size_t bytes = 0;
};

// How a flush makes the caches cold on this processor: "clflushopt", "clflush" or "dc civac"
// (every line of the timed call's buffers written back and invalidated from every cache of the
// machine), or "write" (a write over 1.25x the last-level cache, where user code cannot evict
// lines).
std::string_view flush_method();

// Writes back and invalidates every cache line that overlaps `ranges`, the lines split evenly
// over `threads` threads; returns once every eviction is complete. Contents are unchanged.
// Only where flush_method() is not "write".
void evict_lines(std::span<const ByteRange> ranges, int threads);

// Makes the next read of `ranges` cold. Evicting the lines of what the call touches is cold
// whatever the caches' size (a write over an assumed last-level cache leaves data in a larger
// one: after a 40 MiB write, a 4 MiB buffer read at 1.4x the rate it had once evicted, on a
// processor whose sysfs lists no caches), costs time in proportion to those buffers rather than
// to the cache, and leaves nothing dirty behind for the timed call to write back.
class CacheFlusher {
 public:
  explicit CacheFlusher(int threads);
  void flush(std::span<const ByteRange> ranges);

 private:
  AlignedBuffer buffer_;  // the write's, where lines cannot be evicted
  int threads_;
  unsigned char round_ = 0;
};

}  // namespace readbench::cpu
