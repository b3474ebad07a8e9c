#pragma once
// What a cold CPU sample must evict: the K/V blocks its calls read.
#include <cstddef>
#include <vector>

#include "backends/cpu/cache_flusher.hpp"
#include "core/host_workload.hpp"

namespace readbench::cpu {

// The K and V blocks the first `replicas_used` replicas of `h` read, from pools `k` and `v` laid
// out block by block like h's (its own, or head-major copies of the same size): each block their
// block tables name, or the two whole pools when every replica is used.
std::vector<ByteRange> kv_block_ranges(const HostWorkload& h, int replicas_used, const std::byte* k,
                                       const std::byte* v);

}  // namespace readbench::cpu
