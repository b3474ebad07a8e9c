#pragma once
// The cold-cache flush.
#include <cstddef>
#include <cstdint>
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
// (every line of the timed call's buffers written back and invalidated from the processor's
// caches), or "write" (a write over 1.25x the last-level cache, where user code cannot evict
// lines).
std::string_view flush_method();

// Thread `thread`'s share of the cache lines (of `line` bytes) that overlap `r`, when `threads`
// threads split them evenly: `lines` lines from address `first`. The shares of threads
// 0..threads-1 are disjoint and together cover every overlapping line once.
struct LineSlice {
  std::uintptr_t first = 0;
  std::size_t lines = 0;
};
LineSlice line_slice(const ByteRange& r, std::size_t line, int thread, int threads);

// Writes back and invalidates every cache line that overlaps `ranges` from the processor's
// caches, the lines of each range split evenly over `threads` threads; returns once every
// eviction is complete. Contents are unchanged. Only where flush_method() is not "write".
void evict_lines(std::span<const ByteRange> ranges, int threads);

// Makes the next read of `ranges` cold. Evicting the lines of what the call touches is cold
// whatever the caches' size (a write over an assumed last-level cache leaves data in a larger
// one: after a 40 MiB write, a 4 MiB buffer read at 1.4x the rate it had once evicted, on a
// processor whose sysfs lists no caches), costs time in proportion to those buffers rather than
// to the cache, and leaves nothing dirty behind for the timed call to write back. The threads
// that evict touch every page of the buffers, so address translations (TLB entries, page-table
// lines) start warm, as in a serving loop that reads the same pools every step.
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
