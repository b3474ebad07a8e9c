#pragma once
// The tensor-core math policy (f16, bf16). A math policy holds the query in registers and the
// online-softmax state, and adds what one staged tile contributes; both policies accumulate
// in f32.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/kernels/math.cuh"
#include "backends/cuda/kernels/ptx.cuh"
#include "backends/cuda/kernels/staged_tile.cuh"
#include "backends/cuda/kernels/vec_dtypes.cuh"

namespace readbench::cuda::kernels {

// Tensor cores, f16/bf16. Per 16-token tile and warp:
//   S^T[16 tok, 8 heads] = K[16 tok, D] · Q^T[D, 8 heads]          (D/16 mma, K as A operand)
//   O^T[D, 8 heads]     += V^T[D, 16 tok] · P^T[16 tok, 8 heads]   (D/16 mma, V as A operand)
// The contraction index of a product may be permuted freely, so each lane's K fragment is
// whole 16-byte chunks (d = (c*4 + t)*8 .. +7 of tokens g and g+8, g = lane/4, t = lane%4) and
// the query fragment uses the same d's. For p·V the output rows are permuted instead: lane g
// owns chunks c*8 + g (d = c*64 + g*8 .. +7) of tokens 2t, 2t+1, 2t+8, 2t+9, paired by a byte
// permute. The score fragment S^T becomes the B operand P^T by one movmatrix transpose per 8x8
// half. Up to 8 query heads per thread block (the mma's N).
template <class T_, int D_>
struct MmaMath {
  using T = T_;
  static constexpr int D = D_;
  static constexpr int kHeads = 8;
  static constexpr int kTile = 16;
  static constexpr int kRowChunks = D * 2 / 16;
  static constexpr int kKChunks = D / 32;  // per K token per lane; each feeds two k-steps
  static constexpr int kVChunks = D / 64;  // per V token per lane
  static constexpr int kMTiles = D / 16;   // p·V output tiles of 16 d
  using Tile = StagedTile<kRowChunks>;

  uint32_t q[kKChunks][4];  // B fragments of Q^T, one 16-byte chunk per two k-steps
  float o[kMTiles][4];      // O^T fragments: (d row g or g+8 of tile i, heads 2t, 2t+1)
  float m[2], l[2];         // heads 2t and 2t+1: running max (log2 units), this lane's sum

  __device__ static int v_token(int lane, int i) { return 2 * (lane & 3) + (i & 1) + 8 * (i >> 1); }
  // d of element e (of D/8) of lane g's V chunks.
  __device__ static int v_dim(int g, int e) { return (e / 8) * 64 + g * 8 + e % 8; }

  // q_heads0: this block's first query head, [heads, D]; heads past `valid_heads` are zeros.
  __device__ void init(const T* q_heads0, int valid_heads, int lane) {
    const int g = lane >> 2;
#pragma unroll
    for (int c = 0; c < kKChunks; ++c) {
      uint4 x = make_uint4(0, 0, 0, 0);
      if (g < valid_heads)
        x = *reinterpret_cast<const uint4*>(q_heads0 + std::size_t(g) * D +
                                            (c * 4 + (lane & 3)) * 8);
      q[c][0] = x.x;
      q[c][1] = x.y;
      q[c][2] = x.z;
      q[c][3] = x.w;
    }
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
    m[0] = m[1] = -CUDART_INF_F;
    l[0] = l[1] = 0.0f;
  }

  // Adds a staged tile; tokens at or past `valid` are masked.
  __device__ void compute(const Tile& tile, int valid, float scale_log2, int lane) {
    const int g = lane >> 2, t = lane & 3;
    // Scores: two accumulators halve the dependent mma chain.
    float s[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0};
#pragma unroll
    for (int c = 0; c < kKChunks; ++c) {
      const uint4 k0 = tile.key(g, c * 4 + t);      // token g
      const uint4 k1 = tile.key(g + 8, c * 4 + t);  // token g + 8
      mma_16816<T>(s, k0.x, k1.x, k0.y, k1.y, q[c][0], q[c][1]);
      mma_16816<T>(s2, k0.z, k1.z, k0.w, k1.w, q[c][2], q[c][3]);
    }
    // s[0], s[1]: token g, heads 2t, 2t+1; s[2], s[3]: token g + 8.
    float x[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) x[r] = (s[r] + s2[r]) * scale_log2;
    if (g >= valid) x[0] = x[1] = -CUDART_INF_F;
    if (g + 8 >= valid) x[2] = x[3] = -CUDART_INF_F;

    float p[4], alpha[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float tile_max = warp_max_over(fmaxf(x[h], x[2 + h]), 4, 16);  // over the 8 g's
      const float m_new = fmaxf(m[h], tile_max);
      const float base = softmax_base(m_new);
      alpha[h] = exp2f(m[h] - base);
      m[h] = m_new;
      p[h] = exp2f(x[h] - base);
      p[2 + h] = exp2f(x[2 + h] - base);
    }
    // P in storage precision; the running sum adds the rounded values, so the output is an
    // exact weighted average of V under the weights actually used.
    const uint32_t p_lo = pack2<T>(p[0], p[1]);  // token g,     heads 2t, 2t+1
    const uint32_t p_hi = pack2<T>(p[2], p[3]);  // token g + 8, heads 2t, 2t+1
    const float2 r_lo = unpack2<T>(p_lo), r_hi = unpack2<T>(p_hi);
    l[0] = l[0] * alpha[0] + r_lo.x + r_hi.x;
    l[1] = l[1] * alpha[1] + r_lo.y + r_hi.y;
    const uint32_t b0 = transpose_8x8(p_lo);  // P^T tokens 2t, 2t+1 of head g
    const uint32_t b1 = transpose_8x8(p_hi);  // P^T tokens 2t+8, 2t+9 of head g

    uint4 v[4][kVChunks];  // tokens 2t, 2t+1, 2t+8, 2t+9
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int c = 0; c < kVChunks; ++c) v[i][c] = tile.value(v_token(lane, i), c * 8 + g);
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
      o[i][0] *= alpha[0];
      o[i][1] *= alpha[1];
      o[i][2] *= alpha[0];
      o[i][3] *= alpha[1];
      // Output row g of tile i is element i of this lane's D/8; row g + 8 is element D/16 + i.
      const uint32_t a0 = pair(v[0], v[1], i), a1 = pair(v[0], v[1], D / 16 + i);
      const uint32_t a2 = pair(v[2], v[3], i), a3 = pair(v[2], v[3], D / 16 + i);
      mma_16816<T>(o[i], a0, a1, a2, a3, b0, b1);
    }
  }

  // Element e of two tokens' D/8 elements, packed (first token low).
  __device__ static uint32_t pair(const uint4 (&x)[kVChunks], const uint4 (&y)[kVChunks], int e) {
    const int c = e / 8, w = (e % 8) / 2;
    const uint32_t xw = w == 0 ? x[c].x : w == 1 ? x[c].y : w == 2 ? x[c].z : x[c].w;
    const uint32_t yw = w == 0 ? y[c].x : w == 1 ? y[c].y : w == 2 ? y[c].z : y[c].w;
    return __byte_perm(xw, yw, (e % 2) == 0 ? 0x5410 : 0x7632);
  }

  __device__ void finish(int /*lane*/) {
#pragma unroll
    for (int h = 0; h < 2; ++h) l[h] = warp_sum_over(l[h], 4, 16);
  }

  // sm_o [kHeads, D], sm_m and sm_l [kHeads]: this warp's unnormalized output and softmax state.
  __device__ void store(float* sm_o, float* sm_m, float* sm_l, int lane) const {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
      const int d0 = v_dim(g, i), d1 = v_dim(g, D / 16 + i);
      sm_o[(2 * t) * D + d0] = o[i][0];
      sm_o[(2 * t + 1) * D + d0] = o[i][1];
      sm_o[(2 * t) * D + d1] = o[i][2];
      sm_o[(2 * t + 1) * D + d1] = o[i][3];
    }
    if (g == 0) {
      sm_m[2 * t] = m[0];
      sm_m[2 * t + 1] = m[1];
      sm_l[2 * t] = l[0];
      sm_l[2 * t + 1] = l[1];
    }
  }
};

}  // namespace readbench::cuda::kernels
