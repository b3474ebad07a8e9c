#pragma once
// The paged KV cache in host memory: K/V pools, block tables from a seeded
// shuffled allocator, queries. Backends run from it (CPU) or upload it (CUDA).
#include <cstdint>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/shape.hpp"

namespace readbench {

// Hands out physical block ids in a seeded random order, as a cache after churn would.
class BlockAllocator {
 public:
  BlockAllocator(std::int64_t num_blocks, std::uint64_t seed);
  std::int32_t allocate();  // throws InputError when the pool is exhausted
  std::int64_t remaining() const { return std::int64_t(free_.size()); }

 private:
  std::vector<std::int32_t> free_;
};

struct HostWorkload {
  Workload workload;
  AlignedBuffer q;                        // [replicas, B, Hq, D] in workload.dtype
  AlignedBuffer k_pool;                   // [num_blocks, S, Hkv, D]
  AlignedBuffer v_pool;                   // [num_blocks, S, Hkv, D]
  std::vector<std::int32_t> block_table;  // [replicas, B, blocks_per_seq]

  const std::int32_t* table(int replica) const {
    return block_table.data() +
           std::int64_t(replica) * workload.shape.batch * workload.blocks_per_seq();
  }
  const std::byte* query(int replica) const {
    return q.data() + std::int64_t(replica) * workload.io_elements() *
                          std::int64_t(element_size(workload.dtype));
  }
};

// A second HostWorkload over `h`'s pools and queries (views: `h` must outlive it) with a copy of
// its block tables: two backends that read one workload in place read the same pages.
HostWorkload view_of(const HostWorkload& h);

// Bytes of host memory a workload takes: pools, queries and block tables.
std::int64_t host_workload_bytes(const Workload& w);

// Host memory a new allocation can take now without swapping, in bytes: MemAvailable plus the
// mappings readbench keeps for reuse, which a new mapping unmaps first (mapping_cache.hpp).
std::int64_t host_memory_available_bytes();

// Throws InputError naming the bytes when the whole workload (pools, queries, block tables
// and a check's f64 outputs) cannot fit in a fifth less than this machine's memory, or its
// length is beyond 2^40 tokens. make_host_workload calls it before allocating anything.
void check_host_memory(const Workload& w);

// Validates the workload (throws InputError) and builds it. Pool contents are
// random_value(seed, key|value, physical element index); queries likewise by element index.
// Throws Interrupted (interrupt.hpp) once a signal asks the run to stop mid-fill.
HostWorkload make_host_workload(const Workload& w);

}  // namespace readbench
