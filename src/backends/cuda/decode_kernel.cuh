#pragma once
// The decode-attention kernel both paths share. One thread block per (history split, KV head,
// head tile, sequence) serves every query head of its KV head's group (GQA), so K/V are read
// once per group. Each warp streams tiles of 16 tokens (8 for 1 KiB rows) through its own
// cp.async pipeline: 16-byte loads, every load instruction covering whole 128-byte lines of
// K/V rows, `STAGES - 1` tiles in flight while one is computed, block-table entries fetched a
// tile ahead. Each warp keeps an online softmax (running max, running sum, f32 accumulator);
// the warps merge in shared memory and, when the history is split across thread blocks
// (flash-decoding), the last block of a split row to finish merges the splits.
//
// Two policies make the variants:
//   Rows: PagedRows walks the block table (the fused path); ContiguousRows reads the gather
//         path's materialized [B, L, Hkv, D] history. Nothing else differs between the paths.
//   Math: MmaMath (f16, bf16) computes q·K and p·V with mma.sync on the tensor cores; SimtMath
//         (any dtype; the f32 path) on CUDA cores. Both accumulate in f32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/decode_launch.hpp"
#include "core/errors.hpp"

namespace readbench::cuda::kernels {

constexpr int kWarp = 32;

// ---------------------------------------------------------------------------------------------
// Storage types: 16-byte chunks to f32, f32 pairs to packed storage.

template <class T>
__device__ __forceinline__ void unpack_chunk(const uint4& c, float* f);

template <>
__device__ __forceinline__ void unpack_chunk<float>(const uint4& c, float* f) {
  f[0] = __uint_as_float(c.x);
  f[1] = __uint_as_float(c.y);
  f[2] = __uint_as_float(c.z);
  f[3] = __uint_as_float(c.w);
}

template <>
__device__ __forceinline__ void unpack_chunk<__nv_bfloat16>(const uint4& c, float* f) {
  const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

template <>
__device__ __forceinline__ void unpack_chunk<__half>(const uint4& c, float* f) {
  const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __half2float(__ushort_as_half(static_cast<unsigned short>(w[i] & 0xffffu)));
    f[2 * i + 1] = __half2float(__ushort_as_half(static_cast<unsigned short>(w[i] >> 16)));
  }
}

// Two values rounded to nearest even and packed, `lo` in the low half (mma fragment order).
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);

template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  return uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(lo))) |
         (uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(hi))) << 16);
}

template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
  return uint32_t(__half_as_ushort(__float2half_rn(lo))) |
         (uint32_t(__half_as_ushort(__float2half_rn(hi))) << 16);
}

template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t w);

template <>
__device__ __forceinline__ float2 unpack2<__nv_bfloat16>(uint32_t w) {
  return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

template <>
__device__ __forceinline__ float2 unpack2<__half>(uint32_t w) {
  return make_float2(__half2float(__ushort_as_half(static_cast<unsigned short>(w & 0xffffu))),
                     __half2float(__ushort_as_half(static_cast<unsigned short>(w >> 16))));
}

template <class T>
__device__ __forceinline__ void store_out(void* out, std::size_t i, float x);

template <>
__device__ __forceinline__ void store_out<float>(void* out, std::size_t i, float x) {
  static_cast<float*>(out)[i] = x;
}

template <>
__device__ __forceinline__ void store_out<__nv_bfloat16>(void* out, std::size_t i, float x) {
  static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(x);
}

template <>
__device__ __forceinline__ void store_out<__half>(void* out, std::size_t i, float x) {
  static_cast<__half*>(out)[i] = __float2half_rn(x);
}

// ---------------------------------------------------------------------------------------------
// Asynchronous copies and warp-level matrix instructions.

// 16 bytes global -> shared. `through_l1` (.ca) lets L1 merge the two 16-byte halves of each
// 32-byte sector into one L2 request; .cg sends each lane's request to L2 on its own.
__device__ __forceinline__ void cp_async_16(uint32_t smem_addr, const void* gmem, bool through_l1) {
  if (through_l1) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr), "l"(gmem));
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr), "l"(gmem));
  }
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// D[16x8] += A[16x16] (row) * B[16x8] (col), f32 accumulation.
template <class T>
__device__ __forceinline__ void mma_16816(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                          uint32_t a3, uint32_t b0, uint32_t b1);

template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float (&d)[4], uint32_t a0, uint32_t a1,
                                                         uint32_t a2, uint32_t a3, uint32_t b0,
                                                         uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <>
__device__ __forceinline__ void mma_16816<__half>(float (&d)[4], uint32_t a0, uint32_t a1,
                                                  uint32_t a2, uint32_t a3, uint32_t b0,
                                                  uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Transposes an 8x8 matrix of 16-bit values held as mma fragments across the warp.
__device__ __forceinline__ uint32_t transpose_8x8(uint32_t x) {
  uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
  return y;
}

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

// ---------------------------------------------------------------------------------------------
// Row policies: token -> row of the K/V tensor viewed as [rows, Hkv, D].

// tok / S by multiply and shift (Granlund-Montgomery; exact for tok < 2^31): a hardware
// integer division is a long dependent chain on the path of every tile's first copy.
__device__ __forceinline__ uint32_t div_block(const DecodeParams& p, int tok) {
  return uint32_t((uint64_t(uint32_t(tok)) * p.block_div_magic) >> p.block_div_shift);
}

struct PagedRows {
  // The block-table entry of `tok`, loaded a tile before `row` needs it.
  __device__ static int fetch(const DecodeParams& p, int b, int tok) {
    return __ldg(p.block_table + std::size_t(b) * p.blocks_per_seq + div_block(p, tok));
  }
  __device__ static uint32_t row(const DecodeParams& p, int /*b*/, int tok, int fetched) {
    const uint32_t offset = uint32_t(tok) - div_block(p, tok) * uint32_t(p.block_size);
    return uint32_t(fetched) * uint32_t(p.block_size) + offset;
  }
};

struct ContiguousRows {
  __device__ static int fetch(const DecodeParams&, int, int) { return 0; }
  __device__ static uint32_t row(const DecodeParams& p, int b, int tok, int /*fetched*/) {
    return uint32_t(b) * uint32_t(p.length) + uint32_t(tok);
  }
};

// ---------------------------------------------------------------------------------------------
// A warp's staged tile: K and V rows [tile, kRowChunks] of 16-byte chunks, row-major. Each
// row's chunk index is XOR-swizzled so that the mma fragment reads below hit 8 distinct 16-byte
// bank slots per quarter warp: K rows alternate 64-byte halves (rows g and g + 1 are read
// together), V rows r, r + 2, r + 4, r + 6 take distinct 32-byte quarters. The row-major copies
// and the CUDA-core reads (8 consecutive chunks of one row) stay conflict-free under any
// swizzle within an aligned group of 8 chunks.
template <int kRowChunks>
struct StagedTile {
  static_assert(kRowChunks >= 8, "the swizzle permutes groups of 8 chunks");
  const uint4* k;  // [tile, kRowChunks], swizzled
  const uint4* v;  // [tile, kRowChunks], swizzled
  __device__ static int k_slot(int row, int chunk) {
    return row * kRowChunks + (chunk ^ ((row & 1) << 2));
  }
  __device__ static int v_slot(int row, int chunk) {
    return row * kRowChunks + (chunk ^ (((row >> 1) & 3) << 1));
  }
  __device__ uint4 key(int row, int chunk) const { return k[k_slot(row, chunk)]; }
  __device__ uint4 value(int row, int chunk) const { return v[v_slot(row, chunk)]; }
};

// ---------------------------------------------------------------------------------------------
// Math policies: the query in registers, the online-softmax state, and what one staged tile
// adds to it.

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

// CUDA cores, any dtype; the f32 path (f32 has no tensor-core format precise enough for 1e-5).
// kLanes lanes share one token row (16 bytes each, kPerLane chunks when the row is longer than
// a warp's 512 bytes); the warp handles 32 / kLanes tokens at a time. Dot products reduce over
// the row's lanes by shuffles; the softmax runs on groups of 4 tokens.
template <class T_, int D_, int kHeads_>
struct SimtMath {
  using T = T_;
  static constexpr int D = D_;
  static constexpr int kHeads = kHeads_;
  static constexpr int kVec = 16 / int(sizeof(T));  // elements per chunk
  static constexpr int kRowChunks = D / kVec;       // chunks per token row
  static constexpr int kLanes = kRowChunks < kWarp ? kRowChunks : kWarp;
  static constexpr int kPerLane = kRowChunks / kLanes;  // chunks per token per lane
  static constexpr int kTokensAtOnce = kWarp / kLanes;
  static constexpr int kTile = D * int(sizeof(T)) > 512 ? 8 : 16;  // stage <= 16 KiB a warp
  static constexpr int kTokens = kTile / kTokensAtOnce;            // tokens per lane per tile
  static constexpr int kGroup = kTokens < 4 ? kTokens : 4;         // tokens per softmax update
  static constexpr int kElems = kPerLane * kVec;                   // d values per lane
  using Tile = StagedTile<kRowChunks>;

  float q[kHeads][kElems];
  float o[kHeads][kElems];
  float m[kHeads], l[kHeads];

  __device__ static int chunk_of(int lane, int c) { return (lane % kLanes) + c * kLanes; }

  __device__ void init(const T* q_heads0, int valid_heads, int lane) {
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
#pragma unroll
      for (int c = 0; c < kPerLane; ++c) {
        uint4 x = make_uint4(0, 0, 0, 0);
        if (h < valid_heads)
          x = *reinterpret_cast<const uint4*>(q_heads0 + std::size_t(h) * D +
                                              chunk_of(lane, c) * kVec);
        unpack_chunk<T>(x, &q[h][c * kVec]);
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
          unpack_chunk<T>(tile.key(row, chunk_of(lane, c)), &k[c * kVec]);
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
          unpack_chunk<T>(tile.value(row, chunk_of(lane, c)), &v[c * kVec]);
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

// ---------------------------------------------------------------------------------------------
// The kernel.

template <class Math>
__host__ __device__ constexpr int stage_chunks() {  // 16-byte chunks of a warp's K and V tiles
  return 2 * Math::kTile * Math::kRowChunks;
}

template <class Math, int kWarps, int kStages>
constexpr std::size_t decode_smem_bytes() {
  const std::size_t pipeline = std::size_t(kWarps) * kStages * stage_chunks<Math>() * 16;
  const std::size_t epilogue = std::size_t(kWarps) * Math::kHeads * (Math::D + 2) * sizeof(float);
  return pipeline > epilogue ? pipeline : epilogue;
}

// Split-history merge: out = sum_s w_s o_s with w_s = 2^(lse_s - M) / sum 2^(lse - M), each
// split's o_s already normalized. Called by all threads of a block for `heads` query heads
// starting at flat index bh0 (= b * Hq + head); `weights` is shared memory for heads * splits
// floats. Partials written by other blocks are read through L2 (__ldcg): L1 is not coherent.
template <class T>
__device__ void merge_splits(const DecodeParams& p, std::size_t bh0, int heads, float* weights) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  for (int h = warp; h < heads; h += warps) {
    const float* lse = p.partial_lse + (bh0 + h) * p.splits;  // [splits]
    float m = -CUDART_INF_F;
    for (int s = lane; s < p.splits; s += kWarp) m = fmaxf(m, __ldcg(lse + s));
    m = warp_max_over(m, 1, kWarp / 2);
    float sum = 0.0f;
    for (int s = lane; s < p.splits; s += kWarp) {
      const float e = exp2f(__ldcg(lse + s) - m);
      weights[h * p.splits + s] = e;
      sum += e;
    }
    sum = warp_sum_over(sum, 1, kWarp / 2);
    __syncwarp();
    for (int s = lane; s < p.splits; s += kWarp) weights[h * p.splits + s] /= sum;
  }
  __syncthreads();
  // Four consecutive d per thread: 16-byte loads, a quarter of the loop trips.
  const int quads = p.head_dim / 4;
  for (int idx = threadIdx.x; idx < heads * quads; idx += blockDim.x) {
    const int h = idx / quads, d = idx % quads * 4;
    const float* partial = p.partial_out + (bh0 + h) * p.splits * p.head_dim + d;  // [splits]
    float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll 4
    for (int s = 0; s < p.splits; ++s) {
      const float w = weights[h * p.splits + s];
      const float4 x =
          __ldcg(reinterpret_cast<const float4*>(partial + std::size_t(s) * p.head_dim));
      acc.x = fmaf(w, x.x, acc.x);
      acc.y = fmaf(w, x.y, acc.y);
      acc.z = fmaf(w, x.z, acc.z);
      acc.w = fmaf(w, x.w, acc.w);
    }
    const std::size_t o = (bh0 + h) * p.head_dim + d;
    store_out<T>(p.out, o, acc.x);
    store_out<T>(p.out, o + 1, acc.y);
    store_out<T>(p.out, o + 2, acc.z);
    store_out<T>(p.out, o + 3, acc.w);
  }
}

template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock>
__global__ void __launch_bounds__(kWarps* kWarp)
    decode_kernel(const __grid_constant__ DecodeParams p) {
  using T = typename Math::T;
  using Tile = typename Math::Tile;
  constexpr int D = Math::D;
  constexpr int kTile = Math::kTile;
  constexpr int kHeads = Math::kHeads;
  constexpr int kRowChunks = Math::kRowChunks;
  constexpr int kTileChunks = kTile * kRowChunks;  // of K (and of V) per tile
  constexpr int kStageChunks = stage_chunks<Math>();
  constexpr std::size_t kRowBytes = std::size_t(D) * sizeof(T);
  constexpr int kWarpsPerKv = kWarps / kKvPerBlock;
  static_assert(kTileChunks % kWarp == 0, "a tile is whole warp-wide copies");
  static_assert(kWarps % kKvPerBlock == 0, "whole warps per KV head");
  extern __shared__ uint4 smem[];

  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int kv_local = warp / kWarpsPerKv;  // this warp's KV head within the block
  const int kv_warp = warp % kWarpsPerKv;   // and its index among that head's warps
  const int split = blockIdx.x;
  const int kv_first = blockIdx.y / p.head_tiles * kKvPerBlock;
  const int kv_head = kv_first + kv_local;
  const int head_tile = blockIdx.y % p.head_tiles;
  const int b = blockIdx.z;
  const int begin = split * p.split_tokens;
  const int end = min(p.length, begin + p.split_tokens);
  const int tiles = (end - begin + kTile - 1) / kTile;
  const int head0 = kv_head * p.group + head_tile * kHeads;  // first query head served here
  const int valid_heads = min(kHeads, p.group - head_tile * kHeads);

  Math math;
  math.init(static_cast<const T*>(p.q) + (std::size_t(b) * p.q_heads + head0) * D, valid_heads,
            lane);

  // K/V of this KV head: row r starts at base + r * row_stride.
  const std::size_t row_stride = std::size_t(p.kv_heads) * kRowBytes;
  const char* k_base = static_cast<const char*>(p.k) + std::size_t(kv_head) * kRowBytes;
  const char* v_base = static_cast<const char*>(p.v) + std::size_t(kv_head) * kRowBytes;

  // Tiles w, w + W, ... of this split belong to warp w of W (per KV head): the warps of a
  // block stream neighbouring tiles at the same time.
  const int my_tiles = kv_warp < tiles ? (tiles - kv_warp + kWarpsPerKv - 1) / kWarpsPerKv : 0;
  const uint4* my_stages = smem + warp * kStages * kStageChunks;
  const uint32_t my_stages_addr = static_cast<uint32_t>(__cvta_generic_to_shared(my_stages));

  // Lane j < kTile looks up token j of a tile (tokens past the end repeat the last one; they
  // are masked later) and shuffles the row to the lanes that copy it.
  const int j = lane < kTile ? lane : kTile - 1;
  auto token_of = [&](int it) {
    return min(begin + (kv_warp + it * kWarpsPerKv) * kTile + j, end - 1);
  };
  int fetched = my_tiles > 0 ? Rows::fetch(p, b, token_of(0)) : 0;
  int issued = 0;
  // Copy n of a tile moves chunks n*32 + lane of K and of V: whole rows, so each warp-wide
  // copy covers full 128-byte lines.
  auto issue = [&](int stage) {
    const uint32_t row = Rows::row(p, b, token_of(issued), fetched);
    ++issued;
    if (issued < my_tiles) fetched = Rows::fetch(p, b, token_of(issued));  // a tile ahead
    const uint32_t k_dst = my_stages_addr + uint32_t(stage * kStageChunks * 16);
    const uint32_t v_dst = k_dst + uint32_t(kTileChunks * 16);
#pragma unroll
    for (int n = 0; n < kTileChunks / kWarp; ++n) {
      const int q = n * kWarp + lane;
      const int r = q / kRowChunks, chunk = q % kRowChunks;
      const std::size_t offset =
          std::size_t(__shfl_sync(0xffffffffu, row, r)) * row_stride + std::size_t(chunk) * 16;
      cp_async_16(k_dst + uint32_t(Tile::k_slot(r, chunk) * 16), k_base + offset,
                  p.copy_through_l1);
      cp_async_16(v_dst + uint32_t(Tile::v_slot(r, chunk) * 16), v_base + offset,
                  p.copy_through_l1);
    }
  };

  // One loop for the prologue (it < 0: copies only) and the steady state, so the copy and the
  // math are each compiled once: a smaller kernel starts faster on a cold instruction cache.
#pragma unroll 1
  for (int it = 1 - kStages; it < my_tiles; ++it) {
    __syncwarp();  // every lane is done reading the stage the next issue overwrites
    if (it + kStages - 1 < my_tiles) issue((it + kStages - 1) % kStages);
    cp_async_commit();  // empty groups keep the count uniform
    if (it < 0) continue;
    cp_async_wait<kStages - 1>();  // this lane's copies of tile `it` have landed
    __syncwarp();                  // ... and every other lane's
    const uint4* stage = my_stages + (it % kStages) * kStageChunks;
    const int first = begin + (kv_warp + it * kWarpsPerKv) * kTile;
    math.compute(Tile{stage, stage + kTileChunks}, end - first, p.scale_log2, lane);
  }
  math.finish(lane);
  cp_async_wait<0>();
  __syncthreads();  // the pipeline's shared memory becomes the merge area

  float* sm_o = reinterpret_cast<float*>(smem);  // [W, kHeads, D]
  float* sm_m = sm_o + kWarps * kHeads * D;      // [W, kHeads]
  float* sm_l = sm_m + kWarps * kHeads;          // [W, kHeads]
  math.store(sm_o + warp * kHeads * D, sm_m + warp * kHeads, sm_l + warp * kHeads, lane);
  __syncthreads();

  // Query heads served here: valid_heads of each of the block's KV heads; with several KV
  // heads per block the group fits one head tile, so they are contiguous from bh0.
  const std::size_t bh0 =
      std::size_t(b) * p.q_heads + std::size_t(kv_first) * p.group + head_tile * kHeads;
  const int heads_here = kKvPerBlock == 1 ? valid_heads : kKvPerBlock * p.group;
  constexpr int kQuads = D / 4;  // four consecutive d per thread
  for (int idx = threadIdx.x; idx < kKvPerBlock * valid_heads * kQuads; idx += kWarps * kWarp) {
    const int kv = idx / (valid_heads * kQuads), h = idx / kQuads % valid_heads;
    const int d = idx % kQuads * 4;
    const int w0 = kv * kWarpsPerKv;
    float m_all = -CUDART_INF_F;
#pragma unroll
    for (int w = w0; w < w0 + kWarpsPerKv; ++w) m_all = fmaxf(m_all, sm_m[w * kHeads + h]);
    float sum = 0.0f;
    float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll
    for (int w = w0; w < w0 + kWarpsPerKv; ++w) {
      const float mw = sm_m[w * kHeads + h];
      if (mw == -CUDART_INF_F) continue;  // a warp with no tokens
      const float weight = exp2f(mw - m_all);
      const float4 x = *reinterpret_cast<const float4*>(sm_o + (w * kHeads + h) * D + d);
      sum += weight * sm_l[w * kHeads + h];
      acc.x = fmaf(weight, x.x, acc.x);
      acc.y = fmaf(weight, x.y, acc.y);
      acc.z = fmaf(weight, x.z, acc.z);
      acc.w = fmaf(weight, x.w, acc.w);
    }
    const float inv = 1.0f / sum;
    const std::size_t bh = bh0 + std::size_t(kv) * p.group + h;
    if (p.splits == 1) {
      store_out<T>(p.out, bh * D + d, acc.x * inv);
      store_out<T>(p.out, bh * D + d + 1, acc.y * inv);
      store_out<T>(p.out, bh * D + d + 2, acc.z * inv);
      store_out<T>(p.out, bh * D + d + 3, acc.w * inv);
    } else {
      *reinterpret_cast<float4*>(p.partial_out + (bh * p.splits + split) * D + d) =
          make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
      if (d == 0) p.partial_lse[bh * p.splits + split] = m_all + log2f(sum);
    }
  }
  if (p.splits == 1 || p.split_counters == nullptr) return;

  // The last block of this (sequence, KV head, head tile) to finish merges all splits
  // (threadFenceReduction pattern) and re-arms the counter for the next call.
  __shared__ int is_last;
  __threadfence();
  __syncthreads();
  int* counter = p.split_counters + std::size_t(b) * gridDim.y + blockIdx.y;
  if (threadIdx.x == 0) is_last = atomicAdd(counter, 1) == p.splits - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  merge_splits<T>(p, bh0, heads_here, reinterpret_cast<float*>(smem));
  if (threadIdx.x == 0) *counter = 0;
}

// ---------------------------------------------------------------------------------------------
// Host-side kernel tables.

template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock = 1>
DecodeKernel decode_kernel_entry() {
  DecodeKernel k;
  k.kernel =
      reinterpret_cast<const void*>(&decode_kernel<Math, Rows, kWarps, kStages, kKvPerBlock>);
  k.threads = kWarps * kWarp;
  k.smem_bytes = decode_smem_bytes<Math, kWarps, kStages>();
  k.tile_tokens = Math::kTile;
  k.heads_per_block = Math::kHeads;
  k.kv_per_block = kKvPerBlock;
  return k;
}

// The two shapes of block every kernel comes in (sm_80 fits both): four warps with three stages
// (two when a stage exceeds 8 KiB a warp), the default; and eight warps with two stages (a
// stage of at most 8 KiB; otherwise the four-warp block), a variant that measured slower.
template <class Math, class Rows>
DecodeKernel default_decode_entry(int warps) {
  constexpr bool kSmallStage = stage_chunks<Math>() * 16 <= 8192;
  if constexpr (kSmallStage) {
    if (warps == 8) return decode_kernel_entry<Math, Rows, 8, 2>();
    return decode_kernel_entry<Math, Rows, 4, 3>();
  } else {
    return decode_kernel_entry<Math, Rows, 4, 2>();
  }
}

// The CUDA-core kernel for a group: the smallest compiled head count that holds it; larger
// groups take several thread blocks per KV head.
template <class T, int D, class Rows>
DecodeKernel simt_decode_entry(int group, int warps) {
  if (group <= 1) return default_decode_entry<SimtMath<T, D, 1>, Rows>(warps);
  if (group <= 2) return default_decode_entry<SimtMath<T, D, 2>, Rows>(warps);
  if (group <= 4) return default_decode_entry<SimtMath<T, D, 4>, Rows>(warps);
  return default_decode_entry<SimtMath<T, D, 8>, Rows>(warps);
}

template <class Rows, int D>
DecodeKernel find_decode_kernel_for_dim(const DecodeProblem& p, int warps) {
  switch (p.dtype) {
    case DType::f32:
      return simt_decode_entry<float, D, Rows>(p.group(), warps);
    case DType::f16:
      return default_decode_entry<MmaMath<__half, D>, Rows>(warps);
    case DType::bf16:
      return default_decode_entry<MmaMath<__nv_bfloat16, D>, Rows>(warps);
  }
  return {};
}

// The kernel for `p` with `warps` (4 or 8) warps a block where that shape exists.
template <class Rows>
DecodeKernel find_decode_kernel(const DecodeProblem& p, int warps) {
  switch (p.head_dim) {
    case 64:
      return find_decode_kernel_for_dim<Rows, 64>(p, warps);
    case 128:
      return find_decode_kernel_for_dim<Rows, 128>(p, warps);
    case 256:
      return find_decode_kernel_for_dim<Rows, 256>(p, warps);
    default:
      break;
  }
  throw InputError("--head-dim " + std::to_string(p.head_dim) +
                   " is not supported by the CUDA backend (64, 128 or 256)");
}

}  // namespace readbench::cuda::kernels
