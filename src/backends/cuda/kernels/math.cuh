#pragma once
// Warp reductions and the online softmax's running-max rule.
#include <math_constants.h>

namespace readbench::cuda::kernels {

constexpr int kWarp = 32;

__device__ __forceinline__ float warp_max_over(float x, int from_lane_mask, int to_lane_mask) {
#pragma unroll
  for (int off = from_lane_mask; off <= to_lane_mask; off *= 2)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}

__device__ __forceinline__ float warp_sum_over(float x, int from_lane_mask, int to_lane_mask) {
#pragma unroll
  for (int off = from_lane_mask; off <= to_lane_mask; off *= 2)
    x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}

// Running-max bookkeeping of the online softmax. A max of -inf (nothing seen yet, or a fully
// masked tile) subtracts 0 instead, so exp2 gives 0 rather than NaN.
__device__ __forceinline__ float softmax_base(float m) {
  return m == -CUDART_INF_F ? 0.0f : m;
}

}  // namespace readbench::cuda::kernels
