// Plans and launches the decode kernels of kernels/decode.cuh.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/kernels/decode.cuh"
#include "backends/cuda/plan_thresholds.hpp"
#include "backends/cuda/wave_fill.hpp"
#if defined(READBENCH_BENCH_VARIANTS)  // the variant build's translation unit of the plan
#include "backends/cuda/variants/bench_probe.cuh"
#include "backends/cuda/variants/tuning_variants.hpp"
#endif

namespace readbench::cuda {

namespace {

int ceil_div(std::int64_t a, std::int64_t b) {
  return int((a + b - 1) / b);
}

// Lets `function` take `bytes` of dynamic shared memory; never lowers what an earlier plan of
// the same kernel (still launched) was allowed.
void allow_dynamic_smem(const void* function, std::size_t bytes) {
  cudaFuncAttributes a{};
  RB_CUDA_CHECK(cudaFuncGetAttributes(&a, function));
  if (std::size_t(a.maxDynamicSharedSizeBytes) < bytes)
    RB_CUDA_CHECK(
        cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

// Whether the kernels hold sm_90 code (the cluster instructions) and no variant merges the
// splits its own way.
bool clusters_allowed(const Tuning& t) {
  if (t.cluster <= 1 || !kernels_support_dependent_launch()) return false;
#if defined(READBENCH_BENCH_VARIANTS)
  if (variants_of(t).merge_kernel || variants_of(t).merge_variant != 0) return false;
#endif
  return true;
}

// Whether the device lets a block of `function` take `bytes` of dynamic shared memory beside
// its static shared memory.
bool block_smem_fits(const void* function, std::size_t bytes) {
  int device = 0, optin = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes a{};
  RB_CUDA_CHECK(cudaFuncGetAttributes(&a, function));
  return bytes + a.sharedSizeBytes <= std::size_t(optin);
}

// Each row of `plan` (splits > 1, at most t.cluster and 16) as one cluster, where its blocks'
// partials fit the first's shared memory and every cluster of the grid is resident at once
// (rows of several clusters, or clusters waiting for SMs, measured slower: docs/cuda.md, "Split
// histories"); sets plan.cluster and plan.split_smem_bytes, or leaves them.
void plan_clusters(const DecodeProblem& p, const Tuning& t, std::int64_t rows, DecodePlan& plan) {
  const DecodeKernel& k = plan.kernel;
  const int cluster = plan.splits;
  if (!clusters_allowed(t) || cluster > t.cluster || cluster > 16) return;
  int device = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  // A block's query heads: its head tile's (at most heads_per_block) of each KV head.
  const std::size_t heads = std::size_t(k.kv_per_block == 1 ? std::min(p.group(), k.heads_per_block)
                                                            : k.kv_per_block * p.group());
  std::size_t smem = k.cluster_slots_offset +
                     std::size_t(cluster) * heads * std::size_t(p.head_dim + 1) * sizeof(float);
  int per_sm = 0;
  RB_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  if (t.cluster_spread) smem = std::max(smem, (std::size_t(per_sm) / 2 + 16) / 16 * 16);
  if (!block_smem_fits(k.cluster_function, smem)) return;
  allow_dynamic_smem(k.cluster_function, smem);
  if (cluster > 8)
    RB_CUDA_CHECK(cudaFuncSetAttribute(k.cluster_function,
                                       cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(cluster), unsigned(rows / p.batch), unsigned(p.batch));
  config.blockDim = dim3(unsigned(k.threads));
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim = {unsigned(cluster), 1, 1};
  config.attrs = &attribute;
  config.numAttrs = 1;
  int resident = 0;
  if (cudaOccupancyMaxActiveClusters(&resident, k.cluster_function, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // a size this device cannot launch: no clusters
    return;
  }
  if (resident < rows) return;
  plan.cluster = cluster;
  plan.split_smem_bytes = smem;
}

// The rows of B * Hkv / kv_per_block * head tiles that a kernel `k` makes of `p`, where each
// has the SMs of a row of a few to itself (PlanThresholds::few_rows_min_sms; docs/cuda.md, "Few
// rows"); 0 elsewhere.
std::int64_t few_rows_of(const DecodeProblem& p, const DecodeKernel& k, int sm_count,
                         const PlanThresholds& th) {
  const std::int64_t rows = std::int64_t(p.batch) * (p.kv_heads / k.kv_per_block) *
                            ceil_div(p.group(), k.heads_per_block);
  return few_rows(th, rows, sm_count) ? rows : 0;
}

// The few-rows kernels of Tuning::few_rows where their long-rows kernel applies to `p` (its
// length, rows of a few, and a device whose blocks may take its shared memory); none elsewhere.
std::optional<FewRowsKernel> long_rows_kernel(const DecodeProblem& p, const Tuning& t, int sm_count,
                                              const PlanThresholds& th) {
#if defined(READBENCH_BENCH_VARIANTS)  // a variant of the splits or the clusters: not this layout
  const Tuning defaults;
  if (t.waves != defaults.waves || t.min_split_tokens != defaults.min_split_tokens ||
      t.cluster != defaults.cluster)
    return std::nullopt;
#endif
  const std::optional<FewRowsKernel> f = find_paged_few_rows_kernel(p, t);
  if (!f || !f->long_kernel || p.length < f->long_min_length) return std::nullopt;
  const DecodeKernel& k = *f->long_kernel;
  if (few_rows_of(p, k, sm_count, th) == 0) return std::nullopt;
  for (const void* function : {k.function, k.unsplit_function})
    if (!block_smem_fits(function, k.smem_bytes)) return std::nullopt;
  return f;
}

// A split row of a few (Tuning::few_rows) as one cluster of 8 blocks of the few-rows kernel, an
// SM each, where its length is in the kernel's range and plan_clusters finds the device able to
// hold every row's cluster at once; otherwise `plan` stays as it is. The plan has 8 splits
// (lengths from 1024), so it never launches the kernel's unsplit form.
void plan_few_rows(const DecodeProblem& p, const Tuning& t, int sm_count, const PlanThresholds& th,
                   DecodePlan& plan) {
  constexpr int kClusterSplits = 8;
  if (!clusters_allowed(t)) return;
  const std::optional<FewRowsKernel> f = find_paged_few_rows_kernel(p, t);
  if (!f || p.length < f->min_length || p.length > f->max_length) return;
  const DecodeKernel& k = f->kernel;
  const std::int64_t rows = few_rows_of(p, k, sm_count, th);
  if (rows == 0) return;
  DecodePlan c = plan;  // the launch flags stay
  c.kernel = k;
  c.head_tiles = ceil_div(p.group(), k.heads_per_block);
  c.split_tokens = ceil_div(ceil_div(p.length, kClusterSplits), k.tile_tokens) * k.tile_tokens;
  c.splits = ceil_div(p.length, c.split_tokens);
  c.cluster = 1;
  plan_clusters(p, t, rows, c);  // checks the shared memory against the device's limit
  if (c.cluster != c.splits) return;
  RB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, k.cluster_function,
                                                              k.threads, c.split_smem_bytes));
  plan = c;
}

#if defined(READBENCH_BENCH_VARIANTS)
// Flash-decoding's second step as its own kernel (the merge_kernel variant): one block of
// 128 threads per sequence and query head. Under a dependent launch it is the decode's
// dependent and lets the next call launch at once: its blocks start when the decode's blocks
// let it launch, then wait for the decode to complete before reading the partials.
template <class T>
__global__ void merge_splits_kernel(const __grid_constant__ DecodeParams p) {
  __shared__ float weights[kMaxSplits];
  kernels::launch_dependents();
  kernels::wait_for_prerequisite();
  variants::merge_splits_two_pass<T>(p, blockIdx.x, 1, weights);
}

cudaError_t launch_merge_splits(const DecodeProblem& p, DecodeParams params, bool dependent,
                                cudaStream_t stream) {
  const dim3 rows(unsigned(p.batch * p.q_heads));
  void* args[] = {&params};
  switch (p.dtype) {
    case DType::f32:
      return launch_kernel(reinterpret_cast<const void*>(&merge_splits_kernel<float>), rows,
                           dim3(128), 0, args, dependent, stream);
    case DType::f16:
      return launch_kernel(reinterpret_cast<const void*>(&merge_splits_kernel<__half>), rows,
                           dim3(128), 0, args, dependent, stream);
    case DType::bf16:
      return launch_kernel(reinterpret_cast<const void*>(&merge_splits_kernel<__nv_bfloat16>), rows,
                           dim3(128), 0, args, dependent, stream);
    case DType::e4m3:  // never the output's type
      break;
  }
  return cudaErrorInvalidValue;
}
#endif

}  // namespace

std::int64_t workspace_floats(const DecodeProblem& p, const DecodePlan& plan) {
  if (plan.splits <= 1) return 0;
  return std::int64_t(p.batch) * p.q_heads * plan.splits * (p.head_dim + 1);
}

std::int64_t split_counter_count(const DecodeProblem& p, const DecodePlan& plan) {
  return std::int64_t(p.batch) * (p.kv_heads / plan.kernel.kv_per_block) * plan.head_tiles;
}

namespace {

// The thresholds of the current device's row of plan_thresholds.hpp.
const PlanThresholds& device_thresholds(int sm_count) {
  int device = 0, major = 0, minor = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return plan_thresholds(DeviceKey{major, minor, sm_count});
}

// The kernel for `p`: the long-rows kernel of a row of a few over a long history (`long_rows`),
// else the layout's. Pairs of KV heads where the device lets a block take their shared memory
// and where their rows, each split as finely as a short history may be (th.short_splits splits
// of at least short_split_tokens), still cover the SMs; else a head a row. Fewer rows than that
// halve the SMs a short call of few rows reads on (docs/cuda.md, "Pairs").
DecodeKernel choose_kernel(const DecodeProblem& p, KvLayout layout, int sm_count, const Tuning& t,
                           const PlanThresholds& th,
                           const std::optional<FewRowsKernel>& long_rows) {
  const auto find = [&](const Tuning& tuning) {
    return layout == KvLayout::paged ? find_paged_decode_kernel(p, tuning)
                                     : find_contiguous_decode_kernel(p, tuning);
  };
  DecodeKernel k = long_rows ? *long_rows->long_kernel : find(t);
  const std::int64_t pair_rows = std::int64_t(p.batch) * (p.kv_heads / 2);
  const std::int64_t finest =
      t.short_split_tokens > 0
          ? std::clamp<std::int64_t>(ceil_div(p.length, t.short_split_tokens), 1, th.short_splits)
          : 1;
  if (k.paired_heads &&
      (pair_rows * finest < sm_count || !block_smem_fits(k.function, k.smem_bytes) ||
       !block_smem_fits(k.unsplit_function, k.smem_bytes))) {
    Tuning heads = t;
    heads.paired_heads = false;
    k = find(heads);
  }
  return k;
}

// The plan's kernel, its launch flags and its occupancy: the split and the unsplit kernel
// (launch_decode picks by the plan's splits) have the same block and shared memory, their
// occupancy checked, not assumed alike; the split one's sizes the split. Throws BackendError
// where the device holds no block of them.
DecodePlan start_plan(const DecodeProblem& p, const DecodeKernel& k, const Tuning& t) {
  // Always: the kernel's static shared memory counts against the 48 KiB default too.
  for (const void* f : {k.function, k.unsplit_function}) allow_dynamic_smem(f, k.smem_bytes);
  DecodePlan plan;
  plan.kernel = k;
  plan.copy_through_l1 = t.copy_through_l1;
  plan.dependent_launch = t.dependent_launch;
#if defined(READBENCH_BENCH_VARIANTS)
  const TuningVariants& v = variants_of(t);
  plan.trigger_at_start = v.trigger_at_start;
  plan.trigger_at_exit = v.trigger_at_exit;
  plan.trigger_after_issue = v.trigger_after_issue;
  plan.trigger_at_last_issue = !v.trigger_after_reads && !v.trigger_at_start &&
                               !v.trigger_at_exit && v.trigger_after_issue == 0;
  plan.wait_first = v.wait_first;
  plan.merge_variant = v.merge_variant;
  plan.fence_variant = v.fence_variant;
#endif
  int unsplit_blocks = 0;
  RB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan.blocks_per_sm, k.function,
                                                              k.threads, k.smem_bytes));
  RB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&unsplit_blocks, k.unsplit_function,
                                                              k.threads, k.smem_bytes));
  if (std::min(plan.blocks_per_sm, unsplit_blocks) < 1)
    throw BackendError("the decode kernel for head dim " + std::to_string(p.head_dim) + " needs " +
                       std::to_string(k.smem_bytes) +
                       " bytes of shared memory per block, more than this device offers");
  plan.head_tiles = ceil_div(p.group(), k.heads_per_block);
  return plan;
}

// What bounds a plan's history splits.
struct SplitBounds {
  std::int64_t blocks = 0;       // thread blocks of an unsplit history (rows)
  std::int64_t wanted = 0;       // thread blocks the SMs hold `waves` times over
  std::int64_t smem_splits = 0;  // splits whose merge weights fit the shared memory
  std::int64_t most_splits = 0;  // the most splits the history and the merge allow
};

// Split the history only as far as the SMs hold blocks `waves` times over (rounding down, so
// no partial wave), and never below min_split_tokens per split (short_split_tokens in
// short_history_splits): a split costs a partial write and a merge.
SplitBounds split_bounds(const DecodeProblem& p, const DecodePlan& plan, int sm_count,
                         const Tuning& t) {
  const DecodeKernel& k = plan.kernel;
  SplitBounds s;
  s.blocks = std::int64_t(p.batch) * (p.kv_heads / k.kv_per_block) * plan.head_tiles;
  s.wanted = std::int64_t(double(sm_count) * plan.blocks_per_sm * t.waves);
  const std::int64_t max_splits = std::max(1, ceil_div(p.length, t.min_split_tokens));
  // The mergev=2 variant keeps one weight per (query head, split) in shared memory (a bound far
  // above the splits a plan asks for; the merge itself needs none).
  const std::int64_t heads_per_cta = std::int64_t(k.kv_per_block) * k.heads_per_block;
  s.smem_splits = std::int64_t(k.smem_bytes / sizeof(float)) / heads_per_cta;
  s.most_splits = std::min({max_splits, s.smem_splits, std::int64_t(kMaxSplits)});
  return s;
}

// Rows that fill their last wave only in part split into more waves that fill their last one
// (wave_fill.hpp; measured on the fused path, the gather path's kernel planned alike). Not
// pairs of KV heads: a head a row split so against their one wave (docs/cuda.md, "Pairs").
// Not under a variant of the waves, which asks for its own.
std::int64_t wave_fill_splits(const DecodeProblem& p, const DecodeKernel& k, const Tuning& t,
                              const PlanThresholds& th, const SplitBounds& s, std::int64_t splits) {
  if (k.paired_heads || t.waves != Tuning{}.waves) return splits;
  const std::int64_t row_bytes =
      kv_row_bytes(p.length, p.head_dim, std::int64_t(element_size(p.kv_dtype)), k.kv_per_block);
  return wave_filling_splits(th, s.blocks, s.wanted, splits, s.most_splits, p.length, row_bytes);
}

// A split short history where even the finest splits leave SMs idle: shorter splits, as long
// as every block keeps an SM to itself (a block's few tiles are its latency, not its
// bandwidth) and a row has at most th.short_splits of them (docs/cuda.md, "Short splits"; an
// unsplit history stays so). The merging block's tail grows with the splits, so more of them
// are not assumed to pay.
std::int64_t short_history_splits(const DecodeProblem& p, int sm_count, const Tuning& t,
                                  const PlanThresholds& th, const SplitBounds& s,
                                  std::int64_t splits) {
  if (t.short_split_tokens <= 0 || splits <= 1) return splits;
  const std::int64_t finer =
      std::min({std::int64_t(ceil_div(p.length, t.short_split_tokens)), s.wanted / s.blocks,
                s.smem_splits, th.short_splits, std::int64_t(kMaxSplits)});
  return finer > splits && finer * s.blocks <= sm_count ? finer : splits;
}

// Sets the plan's splits of whole tiles, and where a row of few splits merges: through a
// cluster's shared memory instead of the workspace and the counter (Tuning::cluster), or as a
// row of a few (Tuning::few_rows).
void finish_plan(const DecodeProblem& p, KvLayout layout, int sm_count, const Tuning& t,
                 const PlanThresholds& th, std::int64_t rows, std::int64_t splits,
                 DecodePlan& plan) {
  const DecodeKernel& k = plan.kernel;
  plan.split_tokens = ceil_div(ceil_div(p.length, splits), k.tile_tokens) * k.tile_tokens;
  plan.splits = ceil_div(p.length, plan.split_tokens);
  plan.split_smem_bytes = k.smem_bytes;
  if (plan.splits > 1) plan_clusters(p, t, rows, plan);
  if (plan.splits > 1 && layout == KvLayout::paged) plan_few_rows(p, t, sm_count, th, plan);
}

}  // namespace

DecodePlan plan_decode(const DecodeProblem& p, KvLayout layout, int sm_count, const Tuning& t) {
  const PlanThresholds& th = device_thresholds(sm_count);
  // A row of a few over a long history: one block of the long-rows kernel an SM, split as any
  // other kernel below (at waves 1: as many splits as the row has SMs, or one fewer below the
  // kernel's full length).
  std::optional<FewRowsKernel> long_rows;
  if (layout == KvLayout::paged) long_rows = long_rows_kernel(p, t, sm_count, th);
  DecodePlan plan = start_plan(p, choose_kernel(p, layout, sm_count, t, th, long_rows), t);
  const SplitBounds bounds = split_bounds(p, plan, sm_count, t);
  std::int64_t splits =
      std::clamp<std::int64_t>(bounds.wanted / bounds.blocks, 1, bounds.most_splits);
  splits = wave_fill_splits(p, plan.kernel, t, th, bounds, splits);
  splits = short_history_splits(p, sm_count, t, th, bounds, splits);
  // Pairs of KV heads only where they leave the history unsplit: split rows of pairs (their few
  // splits as one cluster) measured slower at most batches between (docs/cuda.md, "Pairs").
  if (plan.kernel.paired_heads && splits > 1) {
    Tuning heads = t;
    heads.paired_heads = false;
    return plan_decode(p, layout, sm_count, heads);
  }
  // Long rows shorter than their kernel's full length leave each row's merging block an SM's
  // worth of room: a split fewer a row, so that the next call's blocks find SMs free while the
  // merges finish (FewRowsKernel::long_full_length; a row of a few, few_rows_of).
  if (long_rows && p.length < long_rows->long_full_length)
    splits = std::min<std::int64_t>(splits, sm_count / bounds.blocks - 1);
  finish_plan(p, layout, sm_count, t, th, bounds.blocks, splits, plan);
  return plan;
}

cudaError_t launch_kernel(const void* function, dim3 grid, dim3 block, std::size_t smem,
                          void** args, bool dependent, cudaStream_t stream, unsigned cluster) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attributes[2]{};
  unsigned n = 0;
  if (dependent) {
    attributes[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster > 1) {
    attributes[n].id = cudaLaunchAttributeClusterDimension;
    attributes[n++].val.clusterDim = {cluster, 1, 1};
  }
  config.attrs = attributes;
  config.numAttrs = n;
  return cudaLaunchKernelExC(&config, function, args);
}

cudaError_t launch_decode(const DecodeProblem& p, const DecodePlan& plan, DecodeParams params,
                          cudaStream_t stream) {
  params.batch = p.batch;
  params.q_heads = p.q_heads;
  params.kv_heads = p.kv_heads;
  params.head_dim = p.head_dim;
  params.block_size = p.block_size;
  params.length = p.length;
  params.blocks_per_seq = p.blocks_per_seq();
  params.group = p.group();
  params.head_tiles = plan.head_tiles;
  params.splits = plan.splits;
  params.split_tokens = plan.split_tokens;
  params.scale_log2 =
      float(1.4426950408889634 / std::sqrt(double(p.head_dim)) * double(p.kv_scale));
  params.out_scale = p.kv_scale;
  params.copy_through_l1 = plan.copy_through_l1;
  params.trigger_at_last_issue = plan.trigger_at_last_issue;
  params.trigger_at_start = plan.trigger_at_start;
  params.trigger_at_exit = plan.trigger_at_exit;
  params.trigger_after_issue = plan.trigger_after_issue;
  params.wait_first = plan.wait_first;
  params.merge_variant = plan.merge_variant;
  params.fence_variant = plan.fence_variant;
  // Granlund-Montgomery: magic = ceil(2^(32 + l) / S), l = ceil(log2 S); exact for tok < 2^31.
  int l = 0;
  while ((std::uint64_t(1) << l) < std::uint64_t(p.block_size)) ++l;
  params.block_div_shift = 32 + l;
  params.block_div_magic = ((std::uint64_t(1) << (32 + l)) + std::uint64_t(p.block_size) - 1) /
                           std::uint64_t(p.block_size);

  const dim3 grid(unsigned(plan.splits),
                  unsigned(p.kv_heads / plan.kernel.kv_per_block * plan.head_tiles),
                  unsigned(p.batch));
  void* args[] = {&params};
  // Only a split history pays for partials and the merge (the kernel compiled without them
  // would race on the output with more than one split).
  const bool split = plan.splits > 1;
  params.cluster = split ? plan.cluster : 1;
  const void* function = !split               ? plan.kernel.unsplit_function
                         : params.cluster > 1 ? plan.kernel.cluster_function
                                              : plan.kernel.function;
  const cudaError_t status =
      launch_kernel(function, grid, dim3(unsigned(plan.kernel.threads)),
                    split ? plan.split_smem_bytes : plan.kernel.smem_bytes, args,
                    plan.dependent_launch, stream, unsigned(params.cluster));
#if defined(READBENCH_BENCH_VARIANTS)
  // The merge_kernel variant passes no counters: the splits merge in a second kernel.
  if (status == cudaSuccess && plan.splits > 1 && params.split_counters == nullptr)
    return launch_merge_splits(p, params, plan.dependent_launch, stream);
#endif
  return status;
}

}  // namespace readbench::cuda
