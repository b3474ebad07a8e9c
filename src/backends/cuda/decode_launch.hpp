#pragma once
// Host side of the CUDA decode kernels: the problem, the launch plan (grid, history splits) and
// the launchers. A plain header: .cpp files and tests include it without nvcc.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/dtype.hpp"
#include "core/shape.hpp"

namespace readbench::cuda {

// Where K/V rows live. paged: pools [num_blocks, S, Hkv, D] read through the block table (the
// fused path); contiguous: [B, L, Hkv, D], the gather path's materialized history.
enum class KvLayout : std::uint8_t { paged, contiguous };

struct DecodeProblem {
  DType dtype = DType::bf16;     // q and the output
  DType kv_dtype = DType::bf16;  // K/V: dtype or e4m3
  float kv_scale = 1.0f;         // K/V hold value / kv_scale
  int batch = 1;                 // B
  int q_heads = 32;              // Hq
  int kv_heads = 8;              // Hkv
  int head_dim = 128;            // D: 64, 128 or 256
  int block_size = 16;           // S, any positive value
  int length = 1;                // L, history tokens per sequence
  int blocks_per_seq() const { return (length + block_size - 1) / block_size; }
  int group() const { return q_heads / kv_heads; }
};

// The problem of a workload (its length must fit an int: the backend refuses longer ones).
inline DecodeProblem decode_problem(const Workload& w) {
  DecodeProblem p;
  p.dtype = w.dtype;
  p.kv_dtype = w.kv_dtype();
  p.kv_scale = w.kv_scale();
  p.batch = w.shape.batch;
  p.q_heads = w.shape.q_heads;
  p.kv_heads = w.shape.kv_heads;
  p.head_dim = w.shape.head_dim;
  p.block_size = w.shape.block_size;
  p.length = int(w.length);
  return p;
}

// What the kernel reads; passed by value to every decode kernel.
struct DecodeParams {
  const void* q = nullptr;  // [B, Hq, D]
  const void* k = nullptr;  // paged: [num_blocks, S, Hkv, D]; contiguous: [B, L, Hkv, D]
  const void* v = nullptr;  // same layout as k
  const std::int32_t* block_table = nullptr;  // [B, blocks_per_seq]; paged only
  void* out = nullptr;                        // [B, Hq, D]
  float* partial_out = nullptr;   // [B, Hq, splits, D]; used when splits > 1 (not in a cluster)
  float* partial_lse = nullptr;   // [B, Hq, splits], log2 units
  int* split_counters = nullptr;  // [B, Hkv / kv_per_block * head_tiles], zero between calls
                                  // (null: merge kernel)
  int batch = 0, q_heads = 0, kv_heads = 0, head_dim = 0, block_size = 0;
  int length = 0, blocks_per_seq = 0;
  int group = 0;         // Hq / Hkv
  int head_tiles = 0;    // thread blocks per KV head along the group (group > heads per block)
  int splits = 1;        // history splits (flash-decoding); grid.x
  int split_tokens = 0;  // tokens per split, a multiple of the kernel's tile
  // Splits of a row launched as one thread block cluster (1: none): each block writes its
  // partials into the first block's shared memory, which merges them (kernels/decode.cuh).
  int cluster = 1;
  float scale_log2 = 0;  // log2(e) / sqrt(D) times the K scale: scores are kept in log2 units
  float out_scale = 1;   // the V scale, applied to each output
  std::uint64_t block_div_magic = 0;  // tok / S == (tok * magic) >> shift for tok < 2^31
  int block_div_shift = 0;
  bool copy_through_l1 = false;  // cp.async.ca rather than .cg
  // Where a dependent launch lets the next kernel start (once a warp of this block has its last
  // copies in flight, or, where a warp's tiles all fit its pipeline's stages, once its reads are
  // done; at once or at exit: variants) and whether this one walks a read-only history before
  // waiting for the previous kernel (wait_first: a variant that waits before any read).
  bool trigger_at_last_issue = true;
  bool trigger_at_start = false;
  bool wait_first = false;
  bool trigger_at_exit = false;  // a variant: no explicit trigger, the block's exit is one
  // A variant: 1 once a warp has issued its last copies; 2 a tile later.
  int trigger_after_issue = 0;
  int merge_variant = 0;  // a variant: 2 the two-pass split merge the staged one replaced
  // A variant: 1 every thread of a split block also fences (sequentially consistent, GPU
  // scope) before its arrival at the split counter and, in the merging block, after it, as the
  // product did before the one-thread fence (docs/cuda.md, "Split histories and their merge";
  // thread 0's acquire-release fences stay: not quite that product).
  int fence_variant = 0;
  // Variant builds: where each block writes its globaltimer stamps, [blocks][kTimelineStamps]
  // in grid order (start, reads done, outputs or partials written, the block's barrier after them
  // (and the fence=1 variant's fences), the split merge begun (0 where this block did not merge),
  // end, the merge's first partials landed (0 where not measured)); null: none.
  unsigned long long* timeline = nullptr;
};
constexpr int kTimelineStamps = 7;

// The compiled form of one decode kernel (kernels/decode_table.cuh).
struct DecodeKernel {
  const void* function = nullptr;          // the __global__ function, for a split history
  const void* unsplit_function = nullptr;  // the same for an unsplit one: no partials, no merge
  const void* cluster_function = nullptr;  // for a split row launched as one cluster
  int threads = 0;
  std::size_t smem_bytes = 0;
  std::size_t cluster_slots_offset = 0;  // where a cluster's partials start in shared memory
  int tile_tokens = 0;                   // tokens one warp reads per pipeline stage
  int heads_per_block = 0;    // query heads per KV head one thread block serves (a head tile)
  int kv_per_block = 1;       // KV heads one thread block serves
  bool paired_heads = false;  // two adjacent KV heads read as one row (kv_per_block 2)
};

// The variant build's knobs (variants/tuning_variants.hpp, tools/h200 only): the product never
// defines them.
struct TuningVariants;

// What the plan is free to choose. readbench runs the defaults: the variant that measured best
// on the H200 and passed the GPU tests and compute-sanitizer. The variant build
// (tools/h200/build.sh; docs/cuda.md, "The variant build") compiles in the variants
// docs/cuda.md compares, selected by `variants`.
struct Tuning {
  bool copy_through_l1 = true;   // cp.async.ca: L1 merges the halves of each sector (.cg: 2x the
                                 // L2 requests; docs/cuda.md, "The fused kernel")
  double waves = 1.0;            // thread blocks wanted, in multiples of what fits on the SMs
                                 // (more where rows fill their last wave in part:
                                 // wave_fill.hpp)
  int min_split_tokens = 256;    // never split the history finer than this, but:
  int short_split_tokens = 128;  // a split history that leaves SMs idle may go this fine (at
                                 // most PlanThresholds::short_splits splits, each block on an
                                 // SM of its own; plan_decode)
  // A row of at most `cluster` splits runs as one thread block cluster whose first block merges
  // the others' partials from its shared memory (sm_90 on; the workspace, fence and counter go
  // unused), with `cluster_spread` each block taking more than half an SM's shared memory so
  // that it has an SM to itself; rows of several clusters measured slower (docs/cuda.md, "Split
  // histories and their merge").
  int cluster = 8;
  bool cluster_spread = true;
  // A row of a few (the SMs a row has to itself: the device's PlanThresholds) whose history
  // length is in its FewRowsKernel's range runs as one cluster of 8 blocks of eight warps (one
  // an SM, under cluster_spread; docs/cuda.md, "Few rows and long rows"). From its
  // long_min_length, such a row takes one block of the long-rows kernel an SM.
  bool few_rows = true;
  // 16-bit K/V of D=64 in q's type, an even number of KV heads whose groups hold at most 4 query
  // heads: two adjacent KV heads read as one row of 256 bytes (decode_table.cuh), on a device
  // whose blocks may take the kernel's 192 KiB, where the rows of pairs, each split as finely
  // as the history allows a short one (PlanThresholds::short_splits), cover the SMs and where
  // the plan leaves a pair's history unsplit (plan_decode; docs/cuda.md, "Pairs of D = 64
  // heads").
  bool paired_heads = true;
  bool graph_replay = true;  // time_calls replays a captured graph of the calls
  // Kernels launched with programmatic stream serialization (sm_90 on): a call's launch and
  // its reads of the paged history overlap the end of the kernel before it (kernels/decode.cuh).
  bool dependent_launch = true;
  // The variant build's selection (variants/tuning_variants.hpp); null: the product's kernels.
  std::shared_ptr<const TuningVariants> variants;
};

struct DecodePlan {
  DecodeKernel kernel;    // the kernel chosen for the problem
  int blocks_per_sm = 0;  // occupancy of `kernel`
  bool copy_through_l1 = false;
  bool dependent_launch = false;      // Tuning::dependent_launch (the backend drops it below sm_90)
  bool trigger_at_last_issue = true;  // DecodeParams::trigger_at_last_issue
  bool trigger_at_start = false, wait_first = false, trigger_at_exit = false;  // variants of it
  int trigger_after_issue = 0;  // and another (TuningVariants::trigger_after_issue)
  int merge_variant = 0;        // a variant (TuningVariants::merge_variant)
  int fence_variant = 0;        // a variant (TuningVariants::fence_variant)
  int head_tiles = 0;
  int splits = 1;
  int split_tokens = 0;
  int cluster = 1;                   // DecodeParams::cluster
  std::size_t split_smem_bytes = 0;  // the split kernel's dynamic shared memory (with slots)
};

// Floats of split-history workspace (partial outputs, then their log-sum-exps); 0 unsplit.
std::int64_t workspace_floats(const DecodeProblem& p, const DecodePlan& plan);
// Counters the in-kernel split merge needs ([B, Hkv / kv_per_block * head_tiles] ints, zeroed
// once).
std::int64_t split_counter_count(const DecodeProblem& p, const DecodePlan& plan);
// The most splits a plan uses (its merging block reads them all).
constexpr int kMaxSplits = 1024;

// Chooses the kernel and the history split for `p` on a device with `sm_count` SMs under `t`.
// Throws InputError for a head dim other than 64, 128, 256; BackendError on a CUDA failure.
DecodePlan plan_decode(const DecodeProblem& p, KvLayout layout, int sm_count, const Tuning& t);

// Enqueues the decode (and, when the plan splits the history, the merge) on `stream`.
// `params` carries the pointers; the shape fields are filled from `p` and `plan`.
cudaError_t launch_decode(const DecodeProblem& p, const DecodePlan& plan, DecodeParams params,
                          cudaStream_t stream);

// Copies each sequence's blocks into contiguous K/V [B, L, Hkv, D] (the gather path's first step),
// as a programmatic dependent of the kernel before it where `dependent_launch`.
cudaError_t launch_block_gather(const DecodeProblem& p, const void* k_pool, const void* v_pool,
                                const std::int32_t* block_table, void* k_out, void* v_out,
                                bool dependent_launch, cudaStream_t stream);

// Whether the kernels as loaded for the current device were compiled for sm_90 on, so that they
// hold the dependent-launch instructions Tuning::dependent_launch needs (a build for sm_80
// alone, run on a later GPU from its PTX, has none).
bool kernels_support_dependent_launch();

// cudaLaunchKernelExC, with programmatic stream serialization where `dependent`, in clusters of
// `cluster` blocks along x where it is above 1.
cudaError_t launch_kernel(const void* function, dim3 grid, dim3 block, std::size_t smem,
                          void** args, bool dependent, cudaStream_t stream, unsigned cluster = 1);

// Internal: the kernel tables of each layout (paged_decode.cu, block_gather.cu).
DecodeKernel find_paged_decode_kernel(const DecodeProblem& p, const Tuning& t);
DecodeKernel find_contiguous_decode_kernel(const DecodeProblem& p, const Tuning& t);

// The kernel a split row with SMs of its own takes instead of the default (Tuning::few_rows),
// and the history lengths where the H200 measured it faster or even (paged_decode.cu).
struct FewRowsKernel {
  DecodeKernel kernel;  // eight warps of two stages
  int min_length = 0;   // a row of min_length..max_length tokens: one cluster of 8 splits
  int max_length = 0;
  // A row of long_min_length tokens or more: as many splits of this kernel as the row has SMs
  // (one fewer below long_full_length), one block an SM, merged through the workspace (eight warps
  // of three stages: on a device whose blocks may take 192 KiB of shared memory, such as an H100 or
  // H200; measured on the H200 alone); none where not measured faster.
  std::optional<DecodeKernel> long_kernel;
  int long_min_length = 0;
  // Below this length a long row takes a split fewer (one SM of the row's left free), so that
  // the next call's blocks find SMs while the merging blocks finish; from it, a split an SM.
  int long_full_length = 0;
};
// None where the problem's shape was not measured faster with it (and, in variant builds, under
// any variant of the block).
std::optional<FewRowsKernel> find_paged_few_rows_kernel(const DecodeProblem& p, const Tuning& t);

}  // namespace readbench::cuda
