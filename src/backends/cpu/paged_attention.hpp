#pragma once
// The two CPU reads, multi-threaded with OpenMP and vectorised.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "core/host_workload.hpp"

namespace readbench::cpu {

// Scratch the gather path materialises the history into: K and V of [B, L, Hkv, D].
struct GatherWorkspace {
  std::byte* k = nullptr;
  std::byte* v = nullptr;
};

// A slice's first blocks are read before its prefetch runs ahead (PagedRows::kPrefetchAhead
// blocks); from about 8 blocks on that start-up stops dominating.
constexpr std::int64_t kMinSliceBlocks = 8;

// Work split of one call into (sequence, KV-head group, history slice) tasks. A task over
// all KV heads reads each block as one contiguous run; a task over a group of KV heads reads
// a strided span of every row (fused at L = 4096, one sequence on two threads: 10-15% slower
// than two history slices; docs/measurements.md). So the split takes sequences first,
// then slices of the history while each keeps kMinSliceBlocks blocks, then groups of KV
// heads, and shorter slices only when one task per KV head still leaves threads idle.
// Slices' partial softmax states are merged at the end.
struct WorkSplit {
  int head_groups = 1;     // divides Hkv
  int history_splits = 1;  // at most the blocks of a sequence

  // Blocks [first, end) of slice `slice` of a history of `blocks` blocks: as even as they
  // come, none empty while history_splits <= blocks.
  std::pair<std::int64_t, std::int64_t> slice_blocks(std::int64_t blocks, int slice) const {
    return {blocks * slice / history_splits, blocks * (slice + 1) / history_splits};
  }
};
WorkSplit split_work(const Workload& w, int threads);

// One call's inputs: the backend takes them from a replica of its HostWorkload, the plugin
// build of the fused read (examples/plugins) from the pointers its caller hands it.
struct ReadInputs {
  const Workload& workload;
  const std::byte* k_pool;    // [num_blocks, S, Hkv, D] in workload.kv_dtype()
  const std::byte* v_pool;    // the same
  const std::int32_t* table;  // [B, blocks_per_seq]
  const std::byte* q;         // [B, Hq, D] in workload.dtype
};
inline ReadInputs inputs_of(const HostWorkload& h, int replica) {
  return {h.workload, h.k_pool.data(), h.v_pool.data(), h.table(replica), h.query(replica)};
}

// fused: one pass over the block table with an online softmax; nothing is materialised.
// out: [B, Hq, D] in the workload's dtype.
void fused_read(const ReadInputs& in, std::byte* out, int threads);

// gather: copy the sequence's blocks into `ws` contiguously, then attend over that copy.
void gather_read(const ReadInputs& in, std::byte* out, GatherWorkspace ws, int threads);

inline void fused_read(const HostWorkload& h, int replica, std::byte* out, int threads) {
  fused_read(inputs_of(h, replica), out, threads);
}
inline void gather_read(const HostWorkload& h, int replica, std::byte* out, GatherWorkspace ws,
                        int threads) {
  gather_read(inputs_of(h, replica), out, ws, threads);
}

// What the processor offers that a copy of the kernels needs, detected at run time.
struct CpuFeatures {
  bool avx512 = false;    // x86-64-v4 and AVX512-BF16
  bool arm_bf16 = false;  // aarch64 with the BF16 extension (HWCAP2_BF16)
};
CpuFeatures detect_cpu_features();

// The copy that runs on a processor with `f`, among the copies this build holds: "avx512",
// "arm-bf16" or "baseline".
std::string_view pick_kernels(const CpuFeatures& f);

// pick_kernels for this processor: the kernels fused_read and gather_read run.
std::string_view instruction_set();

// The kernels' own widening of e4m3 codes to f32 (exact, NaN codes to NaN), n of them, as
// the copy instruction_set() names runs it: exposed so that a test checks every code.
void widen_e4m3(const std::uint8_t* codes, std::size_t n, float* out);
// The same to bf16 bits of the value / 256 (the kernels fold the 256 into the scales), as the
// AVX512-BF16 copy feeds q.k for bf16 queries; the other copies convert one code at a time.
void widen_e4m3_to_bf16(const std::uint8_t* codes, std::size_t n, std::uint16_t* out);

// The per-instruction-set copies the two functions above dispatch to (paged_attention.cpp is
// compiled once per namespace). Tests call the baseline copy directly, so it is checked on
// processors where the dispatcher would never pick it.
#define READBENCH_DECLARE_CPU_READS(isa)                                                   \
  namespace isa {                                                                          \
  void fused_read(const ReadInputs& in, std::byte* out, int threads);                      \
  void gather_read(const ReadInputs& in, std::byte* out, GatherWorkspace ws, int threads); \
  void widen_e4m3(const std::uint8_t* codes, std::size_t n, float* out);                   \
  void widen_e4m3_to_bf16(const std::uint8_t* codes, std::size_t n, std::uint16_t* out);   \
  }
READBENCH_DECLARE_CPU_READS(baseline)
READBENCH_DECLARE_CPU_READS(avx512)
READBENCH_DECLARE_CPU_READS(arm_bf16)
#undef READBENCH_DECLARE_CPU_READS

}  // namespace readbench::cpu
