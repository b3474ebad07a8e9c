// The fused path: the decode kernel reading K/V blocks in place through the block table.
#include "backends/cuda/kernels/decode_table.cuh"

namespace readbench::cuda {

#if defined(READBENCH_BENCH_VARIANTS)
namespace {

using kernels::decode_kernel_entry;
using kernels::MmaMath;
using kernels::PagedRows;

// The defaults' shape (bf16, D = 128) also has the variants bench/h200/NOTES.md compares.
DecodeKernel find_bf16_d128_variant(const DecodeProblem& p, const Tuning& t) {
  using M = MmaMath<__nv_bfloat16, 128>;
  if (t.simt_half) return kernels::simt_decode_entry<__nv_bfloat16, 128, PagedRows>(p.group(), t);
  // Several KV heads per block need whole groups of KV heads and one head tile.
  if (t.kv_per_block > 1 && p.kv_heads % t.kv_per_block == 0 && p.group() <= M::kHeads) {
    if (t.kv_per_block == 4) return decode_kernel_entry<M, PagedRows, 4, 3, 4>();
    if (t.kv_per_block == 8) return decode_kernel_entry<M, PagedRows, 8, 3, 8>();  // sm_90 only
  }
  if (t.stages == 0) return kernels::find_decode_kernel<PagedRows>(p, t);
  switch (t.warps * 10 + t.stages) {
    case 42:
      return decode_kernel_entry<M, PagedRows, 4, 2>();
    case 44:
      return decode_kernel_entry<M, PagedRows, 4, 4>();
    case 46:  // five tiles in flight a warp, one block an SM (192 KiB)
      return decode_kernel_entry<M, PagedRows, 4, 6>();
    case 83:
      return decode_kernel_entry<M, PagedRows, 8, 3>();  // sm_90 only (192 KiB)
    default:
      break;
  }
  throw InputError("no compiled decode variant with " + std::to_string(t.warps) + " warps and " +
                   std::to_string(t.stages) + " stages");
}

}  // namespace
#endif

DecodeKernel find_paged_decode_kernel(const DecodeProblem& p, const Tuning& t) {
#if defined(READBENCH_BENCH_VARIANTS)
  if (p.dtype == DType::bf16 && p.kv_dtype == DType::bf16 && p.head_dim == 128)
    return find_bf16_d128_variant(p, t);
#endif
  return kernels::find_decode_kernel<kernels::PagedRows>(p, t);
}

}  // namespace readbench::cuda
