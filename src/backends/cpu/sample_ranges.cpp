#include "backends/cpu/sample_ranges.hpp"

#include <algorithm>
#include <cstdint>

namespace readbench::cpu {

std::vector<ByteRange> kv_block_ranges(const HostWorkload& h, int replicas_used, const std::byte* k,
                                       const std::byte* v) {
  const Workload& w = h.workload;
  const int used = std::clamp(replicas_used, 0, w.replicas);
  if (used == w.replicas) return {{k, h.k_pool.size()}, {v, h.v_pool.size()}};
  const std::size_t block_bytes = std::size_t(w.shape.block_size) * w.shape.kv_heads *
                                  w.shape.head_dim * element_size(w.kv_dtype());
  const std::size_t entries = std::size_t(w.shape.batch) * std::size_t(w.blocks_per_seq());
  std::vector<ByteRange> ranges;
  ranges.reserve(2 * std::size_t(used) * entries);
  for (int r = 0; r < used; ++r) {
    const std::int32_t* table = h.table(r);
    for (std::size_t i = 0; i < entries; ++i) {
      const std::size_t offset = std::size_t(table[i]) * block_bytes;
      ranges.push_back({k + offset, block_bytes});
      ranges.push_back({v + offset, block_bytes});
    }
  }
  return ranges;
}

}  // namespace readbench::cpu
