#pragma once
// The tensor-core math policy (f16, bf16). A math policy holds the query in registers and the
// online-softmax state, and adds what one staged tile contributes; both policies accumulate
// in f32.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/math.cuh"
#include "backends/cuda/kernels/ptx.cuh"
#include "backends/cuda/kernels/staged_tile.cuh"
#include "backends/cuda/kernels/vec_dtypes.cuh"

namespace readbench::cuda::kernels {

// Tensor cores, f16/bf16 q with K/V in the same type or in e4m3 (Kv = E4m3). e4m3 K/V are
// widened to f16 in registers and the products run in f16 (type C) whatever q's type: the
// widening is one instruction per two values, where bf16 would take five; a bf16 query is
// converted to f16 once (exact for |q| in [2^-17, 65280], where f16 holds bf16's 8 significant
// bits; below, to f16's subnormal step of 2^-24) and P is rounded to f16 rather than bf16
// (finer). Per 16-token tile and warp:
//   S^T[16 tok, 8 heads] = K[16 tok, D] · Q^T[D, 8 heads]          (D/16 mma, K as A operand)
//   O^T[D, 8 heads]     += V^T[D, 16 tok] · P^T[16 tok, 8 heads]   (D/16 mma, V as A operand)
// The contraction index of a product may be permuted freely, so each lane's K fragment is
// whole 16-byte chunks (chunk c*4 + t of tokens g and g+8, g = lane/4, t = lane%4: 8 d's of T,
// 16 of e4m3) and the query fragment uses the same d's. For p·V the output rows are permuted
// instead: lane g owns D/8 d's of tokens 2t, 2t+1, 2t+8, 2t+9 (v_dim), paired by a byte
// permute. The score fragment S^T becomes the B operand P^T by one movmatrix transpose per 8x8
// half. Up to 8 query heads per thread block (the mma's N).
//
// kPaired: two adjacent KV heads of D/2 read as one row of D (the paged pool's rows of a token
// lie head after head), so a warp's copies of a 16-token tile cover whole 256-byte runs where
// one head of D = 64 gives 128 (docs/cuda.md, "Pairs"): the copies alone of bf16 B=32 D=64 L=16384
// read 4.11-4.13 TB/s a head at a time and 4.31-4.32 TB/s two heads at a time (D=128 rows:
// 4.34). The block serves both heads' query groups, 2 * group heads in the mma's N: query head
// i < group (the first KV head's) holds its D/2 d's in d's [0, D/2) and zeros in the rest, head
// i >= group in d's [D/2, D), so q.K is each head's own score, exactly (for finite K: an
// infinite K element of one head would reach the other's scores as 0 * inf); of its p.V outputs
// the kernel keeps each head's own half (kOutD d's).
template <class T_, int D_, class Kv_ = T_, bool kPaired_ = false>
struct MmaMath {
  using T = T_;
  using Kv = Kv_;
  static constexpr bool kFp8 = std::is_same_v<Kv, E4m3>;
  static_assert(kFp8 || std::is_same_v<Kv, T>, "K/V in q's type or in e4m3");
  static constexpr bool kPaired = kPaired_;
  static_assert(!kPaired || (!kFp8 && D_ == 128), "pairs of 16-bit heads of D = 64");
  using C = std::conditional_t<kFp8, __half, T>;  // the mma's operand type
  static constexpr int D = D_;
  static constexpr int kOutD = kPaired ? D / 2 : D;  // d's of q and of an output head
  static constexpr int kHeads = 8;
  static constexpr int kTile = 16;
  static constexpr int kRowChunks = D * int(sizeof(Kv)) / 16;
  static constexpr int kChunkD = chunk_elements<Kv>();  // d's per K chunk
  static constexpr int kKChunks = D / (4 * kChunkD);    // per K token per lane
  static constexpr int kQWords = D / 8;                 // q pairs per lane: D/4 d's
  static constexpr int kMTiles = D / 16;                // p·V output tiles of 16 d
  static constexpr int kVElems = D / 8;                 // d's of each V token per lane
  static constexpr int kVWords = kVElems * int(sizeof(Kv)) / 4;
  using Tile = StagedTile<kRowChunks>;

  uint32_t q[kQWords];  // B fragments of Q^T: pairs of d's, in this lane's K chunk order
  static_assert(kKChunks * kChunkD / 2 == kQWords, "q holds the d's of this lane's K chunks");
  float o[kMTiles][4];  // O^T fragments: (d row g or g+8 of tile i, heads 2t, 2t+1)
  float m[2], l[2];     // heads 2t and 2t+1: running max (log2 units), this lane's sum

  __device__ static int v_token(int lane, int i) { return 2 * (lane & 3) + (i & 1) + 8 * (i >> 1); }
  // d of element e (of D/8) of lane g's V elements: 16-byte chunks c*8 + g of the row, or for
  // e4m3 rows of 64 bytes (D = 64) 8-byte halves.
  static constexpr int kRun = kFp8 && D == 64 ? 8 : kChunkD;  // consecutive d's a lane owns
  __device__ static int v_dim(int g, int e) {
    return (e / kRun) * (8 * kRun) + g * kRun + e % kRun;
  }

  // q_heads0: this block's first query head, [heads, kOutD]; heads past `valid_heads` are
  // zeros. `group`: the query heads of each KV head of a pair (kPaired; unused otherwise).
  __device__ void init(const T* q_heads0, int valid_heads, int group, int lane) {
    const int g = lane >> 2;
    // Paired: head g's d's are the half of the row its KV head holds.
    const int half = kPaired && g < valid_heads ? g / group : 0;
    // The d's of K chunk c of lane t: (c*4 + t) * kChunkD onwards, 8 of T per 16-byte load.
#pragma unroll
    for (int c = 0; c < kKChunks; ++c)
#pragma unroll
      for (int h = 0; h < kChunkD / 8; ++h) {
        uint4 x = make_uint4(0, 0, 0, 0);
        const int d = (c * 4 + (lane & 3)) * kChunkD + h * 8 - half * kOutD;
        if (g < valid_heads && (!kPaired || (d >= 0 && d < kOutD)))
          x = *reinterpret_cast<const uint4*>(q_heads0 + std::size_t(g) * kOutD + d);
        uint32_t* w = q + (c * kChunkD + h * 8) / 2;
        const uint32_t words[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if constexpr (std::is_same_v<C, T>) {
            w[i] = words[i];
          } else {
            const float2 f = unpack2<T>(words[i]);
            w[i] = pack2<C>(f.x, f.y);
          }
        }
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
      const uint32_t* qc = q + c * kChunkD / 2;
      if constexpr (kFp8) {
        const uint32_t w0[4] = {k0.x, k0.y, k0.z, k0.w}, w1[4] = {k1.x, k1.y, k1.z, k1.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {  // 4 d's of each token per k-step
          uint32_t a0, a2, a1, a3;
          widen_e4m3x4(w0[j], a0, a2);
          widen_e4m3x4(w1[j], a1, a3);
          mma_16816<C>(j % 2 == 0 ? s : s2, a0, a1, a2, a3, qc[2 * j], qc[2 * j + 1]);
        }
      } else {
        mma_16816<T>(s, k0.x, k1.x, k0.y, k1.y, qc[0], qc[1]);
        mma_16816<T>(s2, k0.z, k1.z, k0.w, k1.w, qc[2], qc[3]);
      }
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
    const uint32_t p_lo = pack2<C>(p[0], p[1]);  // token g,     heads 2t, 2t+1
    const uint32_t p_hi = pack2<C>(p[2], p[3]);  // token g + 8, heads 2t, 2t+1
    const float2 r_lo = unpack2<C>(p_lo), r_hi = unpack2<C>(p_hi);
    l[0] = l[0] * alpha[0] + r_lo.x + r_hi.x;
    l[1] = l[1] * alpha[1] + r_lo.y + r_hi.y;
    const uint32_t b0 = transpose_8x8(p_lo);  // P^T tokens 2t, 2t+1 of head g
    const uint32_t b1 = transpose_8x8(p_hi);  // P^T tokens 2t+8, 2t+9 of head g

    // pa[e], pb[e]: element e of tokens (2t, 2t+1) and of tokens (2t+8, 2t+9), packed pairs.
    uint32_t pa[kVElems], pb[kVElems];
    value_pairs(tile, lane, 0, pa);
    value_pairs(tile, lane, 2, pb);
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
      o[i][0] *= alpha[0];
      o[i][1] *= alpha[1];
      o[i][2] *= alpha[0];
      o[i][3] *= alpha[1];
      // Output row g of tile i is element i of this lane's D/8; row g + 8 is element D/16 + i.
      mma_16816<C>(o[i], pa[i], pa[D / 16 + i], pb[i], pb[D / 16 + i], b0, b1);
    }
  }

  // The 32-bit words of this lane's V elements of token `row` (kVWords of them).
  __device__ static void value_words(const Tile& tile, int row, int g, uint32_t* w) {
    if constexpr (kVWords == 2) {  // e4m3, D = 64: 8 bytes, half of chunk g / 2
      const uint2 x = tile.value_half(row, g >> 1, g & 1);
      w[0] = x.x;
      w[1] = x.y;
    } else {
#pragma unroll
      for (int c = 0; c < kVWords / 4; ++c) {
        const uint4 x = tile.value(row, c * 8 + g);
        w[4 * c] = x.x;
        w[4 * c + 1] = x.y;
        w[4 * c + 2] = x.z;
        w[4 * c + 3] = x.w;
      }
    }
  }

  // Elements of tokens v_token(lane, i0) and v_token(lane, i0 + 1), paired element by element
  // (first token low) in C.
  __device__ static void value_pairs(const Tile& tile, int lane, int i0, uint32_t (&out)[kVElems]) {
    const int g = lane >> 2;
    uint32_t x[kVWords], y[kVWords];
    value_words(tile, v_token(lane, i0), g, x);
    value_words(tile, v_token(lane, i0 + 1), g, y);
#pragma unroll
    for (int w = 0; w < kVWords; ++w) {
      if constexpr (kFp8) {  // bytes x0 y0 x1 y1 and x2 y2 x3 y3, each widened to two pairs
        widen_e4m3x4(__byte_perm(x[w], y[w], 0x5140), out[4 * w], out[4 * w + 1]);
        widen_e4m3x4(__byte_perm(x[w], y[w], 0x7362), out[4 * w + 2], out[4 * w + 3]);
      } else {
        out[2 * w] = __byte_perm(x[w], y[w], 0x5410);
        out[2 * w + 1] = __byte_perm(x[w], y[w], 0x7632);
      }
    }
  }

  __device__ void finish(int /*lane*/) {
#pragma unroll
    for (int h = 0; h < 2; ++h) l[h] = warp_sum_over(l[h], 4, 16);
  }

  // sm_o [kHeads, D] (16-byte aligned), sm_m and sm_l [kHeads]: this warp's unnormalized output
  // and softmax state. Elements i .. i+3 of a lane's run are four consecutive d's, stored as one
  // 16-byte word: a quarter of the stores, each 4-way bank-conflicted where a float's was 8-way
  // (16-way with e4m3 K/V, whose runs are 16 d's).
  __device__ void store(float* sm_o, float* sm_m, float* sm_l, int lane) const {
    static_assert(kRun % 4 == 0 && kMTiles % 4 == 0 && D % 64 == 0, "runs of whole float4s");
    const int g = lane >> 2, t = lane & 3;
    auto put = [&](int row, int d, int i0, int k) {
      *reinterpret_cast<float4*>(sm_o + row * D + d) =
          make_float4(o[i0][k], o[i0 + 1][k], o[i0 + 2][k], o[i0 + 3][k]);
    };
#pragma unroll
    for (int i0 = 0; i0 < kMTiles; i0 += 4) {
      const int d0 = v_dim(g, i0), d1 = v_dim(g, D / 16 + i0);
      put(2 * t, d0, i0, 0);
      put(2 * t + 1, d0, i0, 1);
      put(2 * t, d1, i0, 2);
      put(2 * t + 1, d1, i0, 3);
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
