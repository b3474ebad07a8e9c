// The gather path: copy each sequence's blocks into contiguous K/V, then run the decode kernel
// over the contiguous history (same math as the fused path, ContiguousRows addressing).
#include "backends/cuda/kernels/decode_table.cuh"
#if defined(READBENCH_BENCH_VARIANTS)  // the variant build's kernels (tools/h200)
#include "backends/cuda/variants/decode_variants.cuh"
#endif

namespace readbench::cuda {

namespace {

struct GatherParams {
  const uint4* k_pool;        // [num_blocks, S, Hkv, D] as 16-byte chunks
  const uint4* v_pool;        // [num_blocks, S, Hkv, D]
  const std::int32_t* table;  // [B, blocks_per_seq]
  uint4* k_out;               // [B, L, Hkv, D]
  uint4* v_out;               // [B, L, Hkv, D]
  int length, block_size, blocks_per_seq;
  std::int64_t row_chunks;  // 16-byte chunks per token row, Hkv * D * size / 16
};

// One thread block copies one logical block (its tokens below L) of K (z = 0) or V (z = 1):
// S * Hkv * D contiguous elements, four 16-byte loads in flight per thread. Under a dependent
// launch the pools and the table (read-only) are read before waiting for the kernel before,
// which may still read the contiguous copy that the stores overwrite; the decode kernel after
// this one waits for it before reading anything, so it may launch at once.
__global__ void __launch_bounds__(256) block_gather_kernel(const __grid_constant__ GatherParams p) {
  kernels::launch_dependents();
  const int j = blockIdx.x, b = blockIdx.y;
  const int first = j * p.block_size;
  const int tokens = min(p.block_size, p.length - first);
  const std::size_t n = std::size_t(tokens) * p.row_chunks;
  const std::int32_t block = p.table[std::size_t(b) * p.blocks_per_seq + j];
  const uint4* src =
      (blockIdx.z == 0 ? p.k_pool : p.v_pool) + std::size_t(block) * p.block_size * p.row_chunks;
  uint4* dst =
      (blockIdx.z == 0 ? p.k_out : p.v_out) + (std::size_t(b) * p.length + first) * p.row_chunks;
  const std::size_t step = blockDim.x;
  std::size_t i = threadIdx.x;
  bool waited = false;
  for (; i + 3 * step < n; i += 4 * step) {
    const uint4 a = src[i], c = src[i + step], d = src[i + 2 * step], e = src[i + 3 * step];
    if (!waited) kernels::wait_for_prerequisite();
    waited = true;
    dst[i] = a;
    dst[i + step] = c;
    dst[i + 2 * step] = d;
    dst[i + 3 * step] = e;
  }
  if (!waited) kernels::wait_for_prerequisite();
  for (; i < n; i += step) dst[i] = src[i];
}

}  // namespace

bool kernels_support_dependent_launch() {
  cudaFuncAttributes a{};
  return cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(&block_gather_kernel)) ==
             cudaSuccess &&
         a.ptxVersion >= 90;
}

DecodeKernel find_contiguous_decode_kernel(const DecodeProblem& p, const Tuning& t) {
#if defined(READBENCH_BENCH_VARIANTS)
  return kernels::find_decode_kernel<kernels::ContiguousRows, variants::BenchTable>(p, t);
#else
  return kernels::find_decode_kernel<kernels::ContiguousRows>(p, t);
#endif
}

cudaError_t launch_block_gather(const DecodeProblem& p, const void* k_pool, const void* v_pool,
                                const std::int32_t* block_table, void* k_out, void* v_out,
                                bool dependent_launch, cudaStream_t stream) {
  GatherParams g;
  g.k_pool = static_cast<const uint4*>(k_pool);
  g.v_pool = static_cast<const uint4*>(v_pool);
  g.table = block_table;
  g.k_out = static_cast<uint4*>(k_out);
  g.v_out = static_cast<uint4*>(v_out);
  g.length = p.length;
  g.block_size = p.block_size;
  g.blocks_per_seq = p.blocks_per_seq();
  g.row_chunks =
      std::int64_t(p.kv_heads) * p.head_dim * std::int64_t(element_size(p.kv_dtype)) / 16;
  const dim3 grid(unsigned(g.blocks_per_seq), unsigned(p.batch), 2);
  void* args[] = {&g};
  return launch_kernel(reinterpret_cast<const void*>(&block_gather_kernel), grid, dim3(256), 0,
                       args, dependent_launch, stream);
}

}  // namespace readbench::cuda
