// The fused path: the decode kernel reading K/V blocks in place through the block table.
#include "backends/cuda/kernels/decode_table.cuh"

namespace readbench::cuda {

#if defined(READBENCH_BENCH_VARIANTS)
namespace {

using kernels::decode_kernel_entry;
using kernels::MmaMath;
using kernels::PagedRows;

// The defaults' shape (bf16, D = 128) also has the variants tools/h200 compares (docs/cuda.md).
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

namespace {

// The few-rows kernel for q of type T, K/V in T or e4m3, D = 128, and its lengths. docs/cuda.md,
// "Few rows" (readbench's min, B=1 Hkv=8, against the default): e4m3 K/V -2% at L=1024, -7 to -17%
// from L=2048 to 5120, -1% at 6144 (768 tokens a split), where a graph replay had clusters
// lose from L=8192; bf16 K/V -13% at L=4096, -0.6% at 8192 (f16 +0.5%), but +4% (f16 +6%) at
// L=2048, where the default is a cluster of four-warp blocks. Neither gained from 16 splits of
// the kernel at longer lengths (e4m3 +1.4% at L=16384, -4.4% at 32768, +2.5% at 131072). f16
// q measured alike (L=4096: f16 K/V -13%, e4m3 K/V -9%).
// The long rows, eight warps of three stages, 16 splits against the default's 32: docs/cuda.md,
// "Long rows" (readbench's min, B=1 Hkv=8, three rounds) bf16 L=16384 -0.6%, 32768 -3.7%, 65536
// -1.2%, 131072 0.0% (f16 alike); another run had them +0.6% at L=8192. A split fewer (15: 12
// SMs free for the 8 merging blocks' successors; variant build, two rounds): -2.4% at
// L=8192 against the clusters, -1.8% at 16384 against 16 splits, +0.9 to +1.3% from 32768. So
// the long rows from L=8192, 15 splits below 32768 (timed at bf16; f16 takes the same, as it
// timed alike). No e4m3 K/V kernel of three stages was timed (its eight warps of two stages:
// +8.7% at L=16384).
template <class T>
FewRowsKernel few_rows_kernel(bool e4m3_kv) {
  using kernels::decode_kernel_entry;
  using kernels::MmaMath;
  using kernels::PagedRows;
  if (e4m3_kv)
    return {decode_kernel_entry<MmaMath<T, 128, kernels::E4m3>, PagedRows, 8, 2>(), 1024, 6144,
            std::nullopt};
  return {decode_kernel_entry<MmaMath<T, 128>, PagedRows, 8, 2>(), 2049, 8191,
          decode_kernel_entry<MmaMath<T, 128>, PagedRows, 8, 3>(), 8192, 32768};
}

}  // namespace

std::optional<FewRowsKernel> find_paged_few_rows_kernel(const DecodeProblem& p, const Tuning& t) {
#if defined(READBENCH_BENCH_VARIANTS)
  if (t.warps != 4 || t.stages != 0 || t.kv_per_block != 1 || t.simt_half) return std::nullopt;
#endif
  const bool e4m3_kv = p.kv_dtype == DType::e4m3;
  if (!t.few_rows || p.head_dim != 128 || (!e4m3_kv && p.kv_dtype != p.dtype)) return std::nullopt;
  switch (p.dtype) {
    case DType::bf16:
      return few_rows_kernel<__nv_bfloat16>(e4m3_kv);
    case DType::f16:
      return few_rows_kernel<__half>(e4m3_kv);
    default:
      return std::nullopt;
  }
}

DecodeKernel find_paged_decode_kernel(const DecodeProblem& p, const Tuning& t) {
#if defined(READBENCH_BENCH_VARIANTS)
  if (p.dtype == DType::bf16 && p.kv_dtype == DType::bf16 && p.head_dim == 128)
    return find_bf16_d128_variant(p, t);
#endif
  return kernels::find_decode_kernel<kernels::PagedRows>(p, t);
}

}  // namespace readbench::cuda
