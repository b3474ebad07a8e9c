#include "backends/cpu/cache_flusher.hpp"

#include <cstdint>

#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/parallel_fill.hpp"

namespace readbench::cpu {

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
