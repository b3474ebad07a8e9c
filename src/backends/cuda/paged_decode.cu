// The fused path: the decode kernel reading K/V blocks in place through the block table.
#include "backends/cuda/decode_kernel.cuh"

namespace readbench::cuda {

namespace {

using kernels::decode_kernel_entry;
using kernels::MmaMath;
using kernels::PagedRows;

// The defaults' shape (bf16, D = 128) also has the variants bench/h200/NOTES.md compares.
DecodeKernel find_bf16_d128_variant(const DecodeProblem& p, const Tuning& t) {
  using M = MmaMath<__nv_bfloat16, 128>;
  if (t.simt_half) return kernels::simt_decode_entry<__nv_bfloat16, 128, PagedRows>(p.group());
  // Several KV heads per block need whole groups of KV heads and one head tile.
  if (t.kv_per_block > 1 && p.kv_heads % t.kv_per_block == 0 && p.group() <= M::kHeads) {
    if (t.kv_per_block == 4) return decode_kernel_entry<M, PagedRows, 4, 3, 0, 4>();
    if (t.kv_per_block == 8) return decode_kernel_entry<M, PagedRows, 8, 2, 0, 8>();
  }
  const int stages = t.stages == 0 ? 3 : t.stages;
  const int key = t.warps * 10000 + stages * 1000 + t.prefetch_l2;
  switch (key) {
    case 42000: return decode_kernel_entry<M, PagedRows, 4, 2, 0>();
    case 43000: return decode_kernel_entry<M, PagedRows, 4, 3, 0>();
    case 44000: return decode_kernel_entry<M, PagedRows, 4, 4, 0>();
    case 82000: return decode_kernel_entry<M, PagedRows, 8, 2, 0>();
    case 83000: return decode_kernel_entry<M, PagedRows, 8, 3, 0>();
    case 43256: return decode_kernel_entry<M, PagedRows, 4, 3, 256>();
    case 82256: return decode_kernel_entry<M, PagedRows, 8, 2, 256>();
    default: break;
  }
  throw InputError("no compiled decode variant with " + std::to_string(t.warps) + " warps, " +
                   std::to_string(stages) + " stages, L2 prefetch " +
                   std::to_string(t.prefetch_l2));
}

}  // namespace

DecodeKernel find_paged_decode_kernel(const DecodeProblem& p, const Tuning& t) {
  if (p.dtype == DType::bf16 && p.head_dim == 128) return find_bf16_d128_variant(p, t);
  return kernels::find_decode_kernel<PagedRows>(p);
}

}  // namespace readbench::cuda
