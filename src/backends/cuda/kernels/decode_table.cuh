#pragma once
// Host-side tables of the decode kernel: the compiled instantiations and how a problem picks one.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/kernels/decode.cuh"
#include "backends/cuda/kernels/mma_math.cuh"
#include "backends/cuda/kernels/rows.cuh"
#include "backends/cuda/kernels/simt_math.cuh"
#include "core/errors.hpp"

namespace readbench::cuda::kernels {

// The product's table: its kernels (decode_kernel, NoProbe) and its blocks alone. The variant
// build passes its own (variants/decode_variants.cuh) to the templates below, with the same
// members.
struct ProductTable {
  // The __global__ function of a block shape and form.
  template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock, bool kSplit,
            bool kCluster>
  static const void* kernel() {
    return reinterpret_cast<const void*>(
        &decode_kernel<Math, Rows, kWarps, kStages, kKvPerBlock, kSplit, kCluster>);
  }
  // A block `t` asks for instead of the default one for Math: none.
  template <class Math, class Rows>
  static std::optional<DecodeKernel> block(const Tuning&) {
    return std::nullopt;
  }
  // Whether `t` keeps the default block (pairs of KV heads and the few-rows kernels need it).
  static bool default_block(const Tuning&) { return true; }
};

template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock = 1,
          class Table = ProductTable>
DecodeKernel decode_kernel_entry() {
  DecodeKernel k;
  k.function = Table::template kernel<Math, Rows, kWarps, kStages, kKvPerBlock, true, false>();
  k.unsplit_function =
      Table::template kernel<Math, Rows, kWarps, kStages, kKvPerBlock, false, false>();
  k.cluster_function =
      Table::template kernel<Math, Rows, kWarps, kStages, kKvPerBlock, true, true>();
  k.threads = kWarps * kWarp;
  k.smem_bytes = decode_smem_bytes<Math, kWarps, kStages>();
  k.cluster_slots_offset = cluster_slots_offset<Math, kWarps, kStages>();
  k.tile_tokens = Math::kTile;
  k.heads_per_block = Math::kHeads;
  // A pair of KV heads a row counts as two KV heads a block to the host (grid, counters).
  k.kv_per_block = Math::kPaired ? 2 : kKvPerBlock;
  k.paired_heads = Math::kPaired;
  return k;
}

// The block the default kernels come in (sm_80 fits it): four warps, each keeping 16 KiB of K/V in
// flight (the bf16 D = 128 kernel's three stages of 8 KiB, which read at 98% of the H200's
// ceiling): 3 stages of 8 KiB, 5 of 4 KiB, 8 of 2 KiB; two when a stage exceeds 8 KiB a warp.
// The variant build also holds eight warps with two stages (for stages of at most 8 KiB;
// variants/decode_variants.cuh), which measured slower everywhere but in the rows of
// plan_decode's few-rows layout: the product compiles that block for those alone (16-bit q,
// D = 128: find_paged_few_rows_kernel; 128 KiB of shared memory for 16-bit K/V), and for their
// long rows an eight-warp block of three stages (16-bit K/V, 192 KiB), as for D = 64's pairs of
// KV heads (mma_decode_entry).
template <class Math>
constexpr int default_stages() {
  constexpr int kStageBytes = stage_chunks<Math>() * 16;
  if constexpr (kStageBytes > 8192) return 2;
  constexpr int kStages = 16384 / kStageBytes + 1;
  return kStages < 8 ? kStages : 8;
}

template <class Math, class Rows, class Table>
DecodeKernel default_decode_entry(const Tuning& t) {
  if (const std::optional<DecodeKernel> k = Table::template block<Math, Rows>(t)) return *k;
  return decode_kernel_entry<Math, Rows, 4, default_stages<Math>(), 1, Table>();
}

// The CUDA-core kernel for a group: the smallest compiled head count that holds it; larger
// groups take several thread blocks per KV head.
template <class T, int D, class Rows, class Table, class Kv = T>
DecodeKernel simt_decode_entry(int group, const Tuning& t) {
  if (group <= 1) return default_decode_entry<SimtMath<T, D, 1, Kv>, Rows, Table>(t);
  if (group <= 2) return default_decode_entry<SimtMath<T, D, 2, Kv>, Rows, Table>(t);
  if (group <= 4) return default_decode_entry<SimtMath<T, D, 4, Kv>, Rows, Table>(t);
  return default_decode_entry<SimtMath<T, D, 8, Kv>, Rows, Table>(t);
}

// Whether 16-bit K/V of D = 64 in q's type may run as pairs of KV heads (MmaMath's kPaired): an
// even number of KV heads whose two query groups fit the mma's 8 heads (Tuning::paired_heads;
// plan_decode also asks the device and the rows). Not under a variant of the block.
template <class Table>
bool paired_heads(const DecodeProblem& p, const Tuning& t) {
  return Table::default_block(t) && t.paired_heads && p.head_dim == 64 && p.kv_heads % 2 == 0 &&
         2 * p.group() <= 8;
}

// The tensor-core kernel for K/V in q's type. Pairs of KV heads take a block of eight warps
// of three stages (192 KiB, one an SM): a pair reads twice a head's bytes, so the block holds
// twice the four-warp block's copies in flight. The plan takes them only where it leaves their
// history unsplit (plan_decode), so their split and cluster forms are compiled but not launched.
template <class T, int D, class Rows, class Table>
DecodeKernel mma_decode_entry(const DecodeProblem& p, const Tuning& t) {
  if constexpr (D == 64)
    if (paired_heads<Table>(p, t))
      return decode_kernel_entry<MmaMath<T, 128, T, true>, Rows, 8, 3, 1, Table>();
  return default_decode_entry<MmaMath<T, D>, Rows, Table>(t);
}

// K/V in q's type, or in e4m3 (widened in registers).
template <class Rows, int D, class Kv, class Table>
DecodeKernel find_decode_kernel_for_types(const DecodeProblem& p, const Tuning& t) {
  switch (p.dtype) {
    case DType::f32:
      if constexpr (std::is_same_v<Kv, E4m3>)
        return simt_decode_entry<float, D, Rows, Table, E4m3>(p.group(), t);
      else
        return simt_decode_entry<float, D, Rows, Table>(p.group(), t);
    case DType::f16:
      if constexpr (std::is_same_v<Kv, E4m3>)
        return default_decode_entry<MmaMath<__half, D, E4m3>, Rows, Table>(t);
      else
        return mma_decode_entry<__half, D, Rows, Table>(p, t);
    case DType::bf16:
      if constexpr (std::is_same_v<Kv, E4m3>)
        return default_decode_entry<MmaMath<__nv_bfloat16, D, E4m3>, Rows, Table>(t);
      else
        return mma_decode_entry<__nv_bfloat16, D, Rows, Table>(p, t);
    case DType::e4m3:
      break;
  }
  throw InputError("dtype " + std::string(to_string(p.dtype)) + " cannot hold q and the output");
}

template <class Rows, int D, class Table>
DecodeKernel find_decode_kernel_for_dim(const DecodeProblem& p, const Tuning& t) {
  validate_dtypes(p.dtype, p.kv_dtype);
  if (p.kv_dtype == DType::e4m3) return find_decode_kernel_for_types<Rows, D, E4m3, Table>(p, t);
  return find_decode_kernel_for_types<Rows, D, void, Table>(p, t);
}

// The kernel for `p`. The one home of the CUDA backend's head-dim rule: the head dims compiled.
template <class Rows, class Table = ProductTable>
DecodeKernel find_decode_kernel(const DecodeProblem& p, const Tuning& t) {
  switch (p.head_dim) {
    case 64:
      return find_decode_kernel_for_dim<Rows, 64, Table>(p, t);
    case 128:
      return find_decode_kernel_for_dim<Rows, 128, Table>(p, t);
    case 256:
      return find_decode_kernel_for_dim<Rows, 256, Table>(p, t);
    default:
      break;
  }
  throw InputError("--head-dim " + std::to_string(p.head_dim) +
                   " is not supported by the CUDA backend (64, 128 or 256)");
}

}  // namespace readbench::cuda::kernels
