#pragma once
// The CUDA-core math policy (any dtype; the f32 path): the same interface as MmaMath
// (mma_math.cuh), f32 accumulation.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <type_traits>

#include "backends/cuda/kernels/math.cuh"
#include "backends/cuda/kernels/staged_tile.cuh"
#include "backends/cuda/kernels/vec_dtypes.cuh"

namespace readbench::cuda::kernels {

// CUDA cores, any dtype; the f32 path (f32 has no tensor-core format precise enough for 1e-5),
// with K/V in q's type or in e4m3 (Kv). kLanes lanes share one token row (16 bytes each, kPerLane
// chunks when the row is longer than the lanes' 16 bytes each); the warp handles 32 / kLanes
// tokens at a time. Dot products reduce over the row's lanes by shuffles; the softmax runs on
// groups of up to 4 tokens.
//
// A tile holds at most 4 KiB of K (and as much of V), so a stage is at most 8 KiB: f32 rows of
// 512 bytes take 8 tokens a tile, 1 KiB rows 4, and with the kernels' stage rule a four-warp
// block keeps three 8 KiB stages (two in flight) in 96 KiB, two blocks an SM, as the bf16
// tensor-core kernel; e4m3 rows take 16 tokens in smaller stages, and more of them.
template <class T_, int D_, int kHeads_, class Kv_ = T_>
struct SimtMath {
  using T = T_;
  using Kv = Kv_;
  static constexpr int D = D_;
  static constexpr bool kPaired = false;  // (MmaMath's pairs of KV heads)
  static constexpr int kOutD = D;
  static constexpr int kHeads = kHeads_;
  static constexpr int kVec = chunk_elements<Kv>();  // K/V elements per chunk
  static constexpr int kRowChunks = D / kVec;        // chunks per token row
  // Lanes a token row: D * kHeads / 64, so that a lane holds about 64 / kHeads of the row's d's for
  // each of q and the accumulator; at least 8 (a quarter warp reads 128 contiguous bytes of a
  // row) or the row's chunks where it has fewer; at most the row's chunks and a warp. A chunk of
  // e4m3 holds 16 d's, so with eight heads a lane holds 16 d's a head and the kernel spills.
  static constexpr int kLanesForRegs = D * kHeads / 64;
  static constexpr int kLanesMin = kRowChunks < 8 ? kRowChunks : 8;
  static constexpr int kLanesWanted = kLanesForRegs > kLanesMin ? kLanesForRegs : kLanesMin;
  static constexpr int kLanesMax = kRowChunks < kWarp ? kRowChunks : kWarp;
  static constexpr int kLanes = kLanesWanted < kLanesMax ? kLanesWanted : kLanesMax;
  static constexpr int kPerLane = kRowChunks / kLanes;  // chunks per token per lane
  static constexpr int kTokensAtOnce = kWarp / kLanes;
  static constexpr int kTileMax = 4096 / (D * int(sizeof(Kv)));  // tokens in 4 KiB of K
  static constexpr int kTile = kTileMax < 16 ? kTileMax : 16;
  static constexpr int kTokens = kTile / kTokensAtOnce;     // tokens per lane per tile
  static constexpr int kGroup = kTokens < 4 ? kTokens : 4;  // tokens per softmax update
  static constexpr int kElems = kPerLane * kVec;            // d values per lane
  static_assert(kTokens >= 1 && kTile % kTokensAtOnce == 0, "whole steps of the warp a tile");
  static_assert(kRowChunks % kLanes == 0, "a row's chunks split evenly between its lanes");
  static_assert((kLanes & (kLanes - 1)) == 0, "the shuffle reductions halve the lane count");
  static_assert(kTokens % kGroup == 0, "whole softmax groups a tile");
  using Tile = StagedTile<kRowChunks>;

  float q[kHeads][kElems];
  float o[kHeads][kElems];
  float m[kHeads], l[kHeads];

  __device__ static int chunk_of(int lane, int c) { return (lane % kLanes) + c * kLanes; }

  __device__ void init(const T* q_heads0, int valid_heads, int /*group*/, int lane) {
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
#pragma unroll
      for (int c = 0; c < kPerLane; ++c) {
        if constexpr (std::is_same_v<Kv, T>) {
          uint4 x = make_uint4(0, 0, 0, 0);
          if (h < valid_heads)
            x = *reinterpret_cast<const uint4*>(q_heads0 + std::size_t(h) * D +
                                                chunk_of(lane, c) * kVec);
          unpack_chunk<T>(x, &q[h][c * kVec]);
        } else {  // the d's of a K/V chunk, one element of q at a time (once per block)
#pragma unroll
          for (int e = 0; e < kVec; ++e)
            q[h][c * kVec + e] =
                h < valid_heads
                    ? to_float(q_heads0[std::size_t(h) * D + chunk_of(lane, c) * kVec + e])
                    : 0.0f;
        }
      }
#pragma unroll
      for (int e = 0; e < kElems; ++e) o[h][e] = 0.0f;
      m[h] = -CUDART_INF_F;
      l[h] = 0.0f;
    }
  }

  __device__ void compute(const Tile& tile, int valid, float scale_log2, int lane) {
    const int token_lane = lane / kLanes;
#pragma unroll
    for (int u0 = 0; u0 < kTokens; u0 += kGroup) {
      float s[kGroup][kHeads];
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const int row = (u0 + u) * kTokensAtOnce + token_lane;
        float k[kElems];
#pragma unroll
        for (int c = 0; c < kPerLane; ++c)
          unpack_chunk<Kv>(tile.key(row, chunk_of(lane, c)), &k[c * kVec]);
#pragma unroll
        for (int h = 0; h < kHeads; ++h) {
          float dot = 0.0f;
#pragma unroll
          for (int e = 0; e < kElems; ++e) dot = fmaf(q[h][e], k[e], dot);
          s[u][h] = warp_sum_over(dot, 1, kLanes / 2);
        }
        const bool masked = row >= valid;
#pragma unroll
        for (int h = 0; h < kHeads; ++h) s[u][h] = masked ? -CUDART_INF_F : s[u][h] * scale_log2;
      }
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        float group_max = s[0][h];
#pragma unroll
        for (int u = 1; u < kGroup; ++u) group_max = fmaxf(group_max, s[u][h]);
        if constexpr (kTokensAtOnce > 1) group_max = warp_max_over(group_max, kLanes, kWarp / 2);
        const float m_new = fmaxf(m[h], group_max);
        const float base = softmax_base(m_new);
        const float alpha = exp2f(m[h] - base);
        m[h] = m_new;
        float sum = 0.0f;
#pragma unroll
        for (int u = 0; u < kGroup; ++u) {
          s[u][h] = exp2f(s[u][h] - base);
          sum += s[u][h];
        }
        l[h] = l[h] * alpha + sum;
#pragma unroll
        for (int e = 0; e < kElems; ++e) o[h][e] *= alpha;
      }
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const int row = (u0 + u) * kTokensAtOnce + token_lane;
        float v[kElems];
#pragma unroll
        for (int c = 0; c < kPerLane; ++c)
          unpack_chunk<Kv>(tile.value(row, chunk_of(lane, c)), &v[c * kVec]);
#pragma unroll
        for (int h = 0; h < kHeads; ++h)
#pragma unroll
          for (int e = 0; e < kElems; ++e) o[h][e] = fmaf(s[u][h], v[e], o[h][e]);
      }
    }
  }

  // The lanes that read different tokens of a step hold partial sums of the same d's under
  // the same (warp-wide) running max: add them.
  __device__ void finish(int /*lane*/) {
    if constexpr (kTokensAtOnce > 1) {
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        l[h] = warp_sum_over(l[h], kLanes, kWarp / 2);
#pragma unroll
        for (int e = 0; e < kElems; ++e) o[h][e] = warp_sum_over(o[h][e], kLanes, kWarp / 2);
      }
    }
  }

  __device__ void store(float* sm_o, float* sm_m, float* sm_l, int lane) const {
    if (lane < kLanes) {
#pragma unroll
      for (int h = 0; h < kHeads; ++h)
#pragma unroll
        for (int c = 0; c < kPerLane; ++c)
#pragma unroll
          for (int e = 0; e < kVec; ++e)
            sm_o[h * D + (lane + c * kLanes) * kVec + e] = o[h][c * kVec + e];
    }
    if (lane == 0) {
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
        sm_m[h] = m[h];
        sm_l[h] = l[h];
      }
    }
  }
};

}  // namespace readbench::cuda::kernels
