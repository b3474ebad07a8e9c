#pragma once
// The variant build's probe of the decode kernel (kernels/decode.cuh's probe points): each
// block's globaltimer stamps for tools/h200's timelines (DecodeParams::timeline), the launch
// variants of the dependent-launch trigger, every thread's fences (fence_variant) and the
// two-pass split merge (merge_variant). Included only by the variant build's sources.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>

#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/kernels/decode.cuh"

namespace readbench::cuda::variants {

using kernels::global_timer_ns;
using kernels::kWarp;
using kernels::launch_dependents;
using kernels::store_out;
using kernels::warp_max_over;
using kernels::warp_sum_over;

// This block's stamps (DecodeParams::timeline), or null.
__device__ inline unsigned long long* timeline_stamps(const DecodeParams& p) {
  const std::size_t block_id =
      blockIdx.x + std::size_t(gridDim.x) * (blockIdx.y + std::size_t(gridDim.y) * blockIdx.z);
  return p.timeline == nullptr ? nullptr : p.timeline + block_id * kTimelineStamps;
}

// The merge before the staged one (the mergev=2 variant): the log-sum-exps first into shared memory
// `weights` (heads * splits floats), a barrier, then sixteen splits' partials at a time.
template <class T>
__device__ void merge_splits_two_pass(const DecodeParams& p, std::size_t bh0, int heads,
                                      float* weights) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  for (int h = warp; h < heads; h += warps) {
    const float* lse = p.partial_lse + (bh0 + h) * p.splits;
    float* w = weights + h * p.splits;
    float m = -CUDART_INF_F;
    for (int s = lane; s < p.splits; s += kWarp) {
      w[s] = __ldcg(lse + s);
      m = fmaxf(m, w[s]);
    }
    m = warp_max_over(m, 1, kWarp / 2);
    float sum = 0.0f;
    for (int s = lane; s < p.splits; s += kWarp) {
      w[s] = exp2f(w[s] - m);
      sum += w[s];
    }
    sum = warp_sum_over(sum, 1, kWarp / 2);
    for (int s = lane; s < p.splits; s += kWarp) w[s] /= sum;
  }
  __syncthreads();
  constexpr int kInFlight = 16;
  const int quads = p.head_dim / 4;
  for (int idx = threadIdx.x; idx < heads * quads; idx += blockDim.x) {
    const int h = idx / quads, d = idx % quads * 4;
    const float* partial = p.partial_out + (bh0 + h) * p.splits * p.head_dim + d;
    const float* w = weights + h * p.splits;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int s0 = 0; s0 < p.splits; s0 += kInFlight) {
      float4 x[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k)
        if (s0 + k < p.splits)
          x[k] =
              __ldcg(reinterpret_cast<const float4*>(partial + std::size_t(s0 + k) * p.head_dim));
#pragma unroll
      for (int k = 0; k < kInFlight; ++k)
        if (s0 + k < p.splits) {
          acc.x = fmaf(w[s0 + k], x[k].x, acc.x);
          acc.y = fmaf(w[s0 + k], x[k].y, acc.y);
          acc.z = fmaf(w[s0 + k], x[k].z, acc.z);
          acc.w = fmaf(w[s0 + k], x[k].w, acc.w);
        }
    }
    const std::size_t o = (bh0 + h) * p.head_dim + d;
    store_out<T>(p.out, o, acc.x);
    store_out<T>(p.out, o + 1, acc.y);
    store_out<T>(p.out, o + 2, acc.z);
    store_out<T>(p.out, o + 3, acc.w);
  }
}

// The probe: stamps [start, reads done, outputs or partials written, the block's barrier after
// them (and the fence=1 variant's fences), the split merge begun (0 where this block did not
// merge), end, the merge's first partials landed (0 where not measured)] (kTimelineStamps).
struct BenchProbe {
  unsigned long long* stamps;
  __device__ explicit BenchProbe(const DecodeParams& p) : stamps(timeline_stamps(p)) {}
  __device__ void stamp(int i) {
    if (stamps != nullptr && threadIdx.x == 0) stamps[i] = global_timer_ns();
  }
  __device__ void started() {
    if (stamps != nullptr && threadIdx.x == 0)
      stamps[0] = global_timer_ns(), stamps[3] = stamps[4] = stamps[6] = 0;
  }
  __device__ void copies_issued(const DecodeParams& p, int it, int stages, int my_tiles) {
    if (p.trigger_after_issue == 1 && it + stages == my_tiles) launch_dependents();
  }
  __device__ void tile_computed(const DecodeParams& p, int it, int stages, int my_tiles) {
    if (p.trigger_after_issue == 2 && it == max(0, my_tiles - stages)) launch_dependents();
  }
  __device__ void reads_done() { stamp(1); }
  __device__ void outputs_written() {
    if (stamps != nullptr) __syncthreads();  // every thread's outputs written
    if (stamps != nullptr && threadIdx.x == 0) stamps[2] = stamps[5] = global_timer_ns();
  }
  __device__ void before_arrival(const DecodeParams& p) {
    if (p.fence_variant == 1) __threadfence();  // the fences before the one-thread fence
  }
  __device__ void arrived() { stamp(3); }
  __device__ void leaving() { stamp(5); }
  __device__ void merging(const DecodeParams& p) {
    if (p.fence_variant == 1) __threadfence();
  }
  __device__ void merge_begun() { stamp(4); }
  static __device__ void first_partials_landed(const DecodeParams& p) {
    if (threadIdx.x == 0 && p.timeline != nullptr) timeline_stamps(p)[6] = global_timer_ns();
  }
  template <class T>
  __device__ bool merge(const DecodeParams& p, std::size_t bh0, int heads, float* smem) {
    if (p.merge_variant != 2) return false;
    merge_splits_two_pass<T>(p, bh0, heads, smem);
    return true;
  }
  __device__ void done() {
    if (stamps != nullptr) __syncthreads();
    if (stamps != nullptr && threadIdx.x == 0) stamps[5] = global_timer_ns();
  }
};

}  // namespace readbench::cuda::variants
