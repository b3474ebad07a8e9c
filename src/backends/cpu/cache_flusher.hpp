#pragma once
// The cold-cache flush.
#include "core/aligned_buffer.hpp"

namespace readbench::cpu {

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
