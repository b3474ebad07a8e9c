// The fused path: the decode kernel reading K/V blocks in place through the block table.
#include "backends/cuda/kernels/decode_table.cuh"
#if defined(READBENCH_BENCH_VARIANTS)  // the variant build's kernels (tools/h200)
#include "backends/cuda/variants/decode_variants.cuh"
#endif

namespace readbench::cuda {

namespace {
#if defined(READBENCH_BENCH_VARIANTS)
using Table = variants::BenchTable;
#else
using Table = kernels::ProductTable;
#endif
}  // namespace

#if defined(READBENCH_BENCH_VARIANTS)
namespace {

using kernels::MmaMath;
using kernels::PagedRows;

template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock = 1>
DecodeKernel decode_kernel_entry() {
  return kernels::decode_kernel_entry<Math, Rows, kWarps, kStages, kKvPerBlock, Table>();
}

// The defaults' shape (bf16, D = 128) also has the variants tools/h200 compares (docs/cuda.md).
DecodeKernel find_bf16_d128_variant(const DecodeProblem& p, const Tuning& tuning) {
  using M = MmaMath<__nv_bfloat16, 128>;
  const TuningVariants& t = variants_of(tuning);
  if (t.simt_half)
    return kernels::simt_decode_entry<__nv_bfloat16, 128, PagedRows, Table>(p.group(), tuning);
  // Several KV heads per block need whole groups of KV heads and one head tile.
  if (t.kv_per_block > 1 && p.kv_heads % t.kv_per_block == 0 && p.group() <= M::kHeads) {
    if (t.kv_per_block == 4) return decode_kernel_entry<M, PagedRows, 4, 3, 4>();
    if (t.kv_per_block == 8) return decode_kernel_entry<M, PagedRows, 8, 3, 8>();  // sm_90 only
  }
  if (t.stages == 0) return kernels::find_decode_kernel<PagedRows, Table>(p, tuning);
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

// The few-rows kernel for q of type T, K/V in T or e4m3, D = 128, and its lengths, where the
// H200 measured it faster than the default or even (docs/cuda.md, "Few rows and long rows"):
// e4m3 K/V from L=1024 to 6144; 16-bit K/V from L=2049 to 8191, where a cluster of four-warp
// blocks stays the default below. The long rows, eight warps of three stages, from L=8192, a
// split fewer below 32768 (f16 takes bf16's, as it timed alike); no e4m3 K/V kernel of three
// stages was timed.
template <class T>
FewRowsKernel few_rows_kernel(bool e4m3_kv) {
  using kernels::decode_kernel_entry;
  using kernels::MmaMath;
  using kernels::PagedRows;
  if (e4m3_kv)
    return {decode_kernel_entry<MmaMath<T, 128, kernels::E4m3>, PagedRows, 8, 2, 1, Table>(), 1024,
            6144, std::nullopt};
  return {decode_kernel_entry<MmaMath<T, 128>, PagedRows, 8, 2, 1, Table>(), 2049, 8191,
          decode_kernel_entry<MmaMath<T, 128>, PagedRows, 8, 3, 1, Table>(), 8192, 32768};
}

}  // namespace

std::optional<FewRowsKernel> find_paged_few_rows_kernel(const DecodeProblem& p, const Tuning& t) {
  if (!Table::default_block(t)) return std::nullopt;
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
  return kernels::find_decode_kernel<kernels::PagedRows, Table>(p, t);
}

}  // namespace readbench::cuda
