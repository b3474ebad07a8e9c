#pragma once
// A warp's staged K/V tile in shared memory and its bank-conflict-free swizzle.
#include <cuda_runtime.h>

namespace readbench::cuda::kernels {

// A warp's staged tile: K and V rows [tile, kRowChunks] of 16-byte chunks, row-major. Each
// row's chunk index is XOR-swizzled so that the mma fragment reads of MmaMath hit 8 distinct
// 16-byte bank slots per quarter warp: K rows alternate 64-byte halves (rows g and g + 1 are read
// together), V rows r, r + 2, r + 4, r + 6 take distinct 32-byte quarters. The row-major copies
// and the CUDA-core reads (8 consecutive chunks of one row) stay conflict-free under any
// swizzle within an aligned group of 8 chunks. Rows of 4 chunks (e4m3, D = 64) put two rows in
// a bank line: K rows g and g + 1 are apart already, and V rows r and r + 4 take different
// halves (rows r and r + 2 still share banks: a two-way conflict on that shape's V reads).
template <int kRowChunks>
struct StagedTile {
  static_assert(kRowChunks >= 8 || kRowChunks == 4, "rows of 4 or of whole groups of 8 chunks");
  const uint4* k;  // [tile, kRowChunks], swizzled
  const uint4* v;  // [tile, kRowChunks], swizzled
  __device__ static int k_slot(int row, int chunk) {
    if constexpr (kRowChunks == 4) return row * kRowChunks + chunk;
    return row * kRowChunks + (chunk ^ ((row & 1) << 2));
  }
  __device__ static int v_slot(int row, int chunk) {
    if constexpr (kRowChunks == 4) return row * kRowChunks + (chunk ^ (((row >> 2) & 1) << 1));
    return row * kRowChunks + (chunk ^ (((row >> 1) & 3) << 1));
  }
  __device__ uint4 key(int row, int chunk) const { return k[k_slot(row, chunk)]; }
  __device__ uint4 value(int row, int chunk) const { return v[v_slot(row, chunk)]; }
  // 8 bytes of a V row: half `half` of chunk `chunk`.
  __device__ uint2 value_half(int row, int chunk, int half) const {
    return reinterpret_cast<const uint2*>(v + v_slot(row, chunk))[half];
  }
};

}  // namespace readbench::cuda::kernels
