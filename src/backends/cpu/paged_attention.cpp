#include "backends/cpu/paged_attention.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "core/interrupt.hpp"

// This file is compiled once per instruction set (src/CMakeLists.txt); READBENCH_CPU_ISA
// names the namespace of each copy and paged_attention_dispatch.cpp picks one at run time.
#ifndef READBENCH_CPU_ISA
#error "READBENCH_CPU_ISA must name the instruction-set namespace"
#endif

namespace readbench::cpu::READBENCH_CPU_ISA {

namespace {

#include "backends/cpu/prefetch_queue.inc"

// Tag types so f16 and bf16 (both 16-bit words) select different conversions.
struct Bf16 {
  std::uint16_t bits;
};
struct F16 {
  std::uint16_t bits;
};
// e4m3 K/V (dtype.hpp): widened exactly; the kernels apply the scale to q and to the output.
struct E4m3 {
  std::uint8_t bits;
};

// One SIMD register of floats: GCC vector extensions keep the kernels explicit without tying
// them to one instruction set (AVX-512 where compiled for it, else AVX2, else SSE; on aarch64
// each 8-lane vector is a pair of 128-bit NEON registers, so 16 of them are NEON's 32).
#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr int kRegisters = 32;
#else
constexpr int kLanes = 8;
constexpr int kRegisters = 16;
#endif
#if defined(__AVX512F__)
// Lanes 8..15 of a 16-lane shuffle pattern, unchanged (only lane 0 is read after the tree).
#define LANES_TAIL , 8, 9, 10, 11, 12, 13, 14, 15
#else
#define LANES_TAIL
#endif
using vfloat = float __attribute__((vector_size(kLanes * sizeof(float))));
using vu16 = std::uint16_t __attribute__((vector_size(kLanes * sizeof(std::uint16_t))));
using vu32 = std::uint32_t __attribute__((vector_size(kLanes * sizeof(std::uint32_t))));

inline vfloat load_vec(const float* p) {
  vfloat v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline vfloat load_vec(const Bf16* p) {
  vu16 h;
  std::memcpy(&h, p, sizeof h);
  return reinterpret_cast<vfloat>(__builtin_convertvector(h, vu32) << 16);
}
// f16 bits to f32, kLanes at a time: exact in every case (F16C, or FCVTL on aarch64).
inline vfloat widen_f16(vu16 h) {
  vfloat v;
#if defined(__AVX512F__)
// GCC 12's own _mm512_cvtph_ps trips -W(maybe-)uninitialized inside the intrinsic header
// (clang has no such warning).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  const __m512 x = _mm512_cvtph_ps(reinterpret_cast<__m256i>(h));
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  std::memcpy(&v, &x, sizeof v);
#elif defined(__F16C__)
  const __m256 x = _mm256_cvtph_ps(reinterpret_cast<__m128i>(h));
  std::memcpy(&v, &x, sizeof v);
#elif defined(__aarch64__)
  // FCVTL: half to single precision is part of Armv8.0's Advanced SIMD.
  const float16x8_t x = vreinterpretq_f16_u16(h);
  const float32x4_t halves[2] = {vcvt_f32_f16(vget_low_f16(x)), vcvt_high_f32_f16(x)};
  static_assert(sizeof halves == sizeof v);
  std::memcpy(&v, halves, sizeof v);
#else
  for (int j = 0; j < kLanes; ++j) v[j] = f16_bits_to_float(h[j]);
#endif
  return v;
}

inline vfloat load_vec(const F16* p) {
  vu16 h;
  std::memcpy(&h, p, sizeof h);
  return widen_f16(h);
}

// e4m3 is widened through f16, whose 5-bit exponent and 10-bit mantissa hold its 4 and 3 with
// room: the code's 7 bits of exponent and mantissa shifted left by 7 are the f16 of its value
// times 2^-8 (bias 15, not 7), e4m3's subnormals landing on f16's, exactly. So a load costs a
// sign extension, a shift, a mask and the f16 widening: no exponent rebias, no subnormal case
// (GCC's own byte-to-word conversion of vector extensions goes through scalar registers, hence
// the intrinsics). The 2^-8 is folded into the scales (kLoadUnit).
constexpr float kE4m3LoadUnit = 256.0f;

// Sign-extended codes to f16 bits. After the shift, bits 15 and 14 both hold the sign; bit 14
// must become 1 for the NaN codes (0x7f, 0xff: e4m3 has no infinities), whose exponent and
// mantissa bits are all ones, so that the f16 exponent is all ones too, and 0 for every other
// code. Adding 1 below the mantissa carries into bit 14 exactly for those codes (for a negative
// one, out of bits 14 and 15), so bit 14 of the sum is the sign XOR "is NaN", and XOR-ing it
// into t leaves "is NaN": three operations where a compare and a select take four.
template <class V>  // unsigned 16-bit lanes
inline V e4m3_f16_bits(V s) {
  const V t = s << 7;
  return t ^ ((t + 0x80u) & 0x4000u);
}

inline vfloat load_vec(const E4m3* p) {
  vu16 s;
#if defined(__AVX512F__)
  s = reinterpret_cast<vu16>(
      _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif defined(__F16C__)
  s = reinterpret_cast<vu16>(
      _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
#elif defined(__aarch64__)
  s = vreinterpretq_u16_s16(vmovl_s8(vld1_s8(reinterpret_cast<const std::int8_t*>(p))));
#else
  for (int j = 0; j < kLanes; ++j) s[j] = std::uint16_t(std::int8_t(p[j].bits));
#endif
  return widen_f16(e4m3_f16_bits(s));
}

// Tree reduction across lanes: log2(lanes) shuffles instead of a chain of scalar adds.
inline float hsum(vfloat v) {
#if defined(__AVX512F__)
  v += __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
#endif
  v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3 LANES_TAIL);
  v += __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5 LANES_TAIL);
  v += __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6 LANES_TAIL);
  return v[0];
}

inline float scalar_f32(float x) {
  return x;
}
inline float scalar_f32(Bf16 x) {
  return bf16_bits_to_float(x.bits);
}
inline float scalar_f32(F16 x) {
  return f16_bits_to_float(x.bits);
}
inline float scalar_f32(E4m3 x) {
  return e4m3_bits_to_float(x.bits) * (1.0f / kE4m3LoadUnit);  // as load_vec: exact
}

// What load_vec and scalar_f32 return times this is the stored value.
template <class T>
constexpr float kLoadUnit = std::is_same_v<T, E4m3> ? kE4m3LoadUnit : 1.0f;

// 2^x for x <= 0 by round-to-nearest range reduction and a degree-7 Taylor polynomial on
// [-0.5, 0.5] (relative error about 5e-9, far below f32 tolerance); plain arithmetic so the
// loops around it vectorise, unlike a libm call.
inline float fast_exp2(float x) {
  x = std::max(x, -125.0f);
  // Adding and removing 1.5 * 2^23 rounds to nearest in plain arithmetic (no libm call).
  const float xi = (x + 12582912.0f) - 12582912.0f;
  const float f = x - xi;
  float p = 1.5252734e-05f;
  p = p * f + 1.5403530e-04f;
  p = p * f + 1.3333558e-03f;
  p = p * f + 9.6181291e-03f;
  p = p * f + 5.5504109e-02f;
  p = p * f + 2.4022651e-01f;
  p = p * f + 6.9314718e-01f;
  p = p * f + 1.0f;
  const auto scale = std::bit_cast<float>(std::uint32_t(std::int32_t(xi) + 127) << 23);
  return p * scale;
}

constexpr int kChunk = 32;  // tokens per online-softmax step: scores stay in L1

// Online-softmax state of G query heads over part of the history, in the log2 domain.
template <int G>
struct HeadState {
  float* m;    // [G]
  float* l;    // [G]
  float* acc;  // [G, D]
};

// Scores of TT rows at once for G heads: each K vector is loaded and converted once and each
// q vector once per TT rows. TT*G accumulators stay in registers.
template <class T, int G, int TT>
inline void score_rows(const float* qs, int D, const T* k, std::ptrdiff_t stride, int t,
                       float (*s)[kChunk]) {
  const int nv = D / kLanes;
  vfloat a[TT][G] = {};
  for (int i = 0; i < nv; ++i) {
    vfloat kv[TT];
    for (int r = 0; r < TT; ++r) kv[r] = load_vec(k + (t + r) * stride + i * kLanes);
    for (int g = 0; g < G; ++g) {
      const vfloat qv = load_vec(qs + g * D + i * kLanes);
      for (int r = 0; r < TT; ++r) a[r][g] += qv * kv[r];
    }
  }
  for (int r = 0; r < TT; ++r)
    for (int g = 0; g < G; ++g) {
      float dot = hsum(a[r][g]);
      const T* row = k + (t + r) * stride;
      for (int d = nv * kLanes; d < D; ++d) dot += qs[g * D + d] * scalar_f32(row[d]);
      s[g][t + r] = dot;
    }
}

// acc[g, tile] += sum_t p[g][t] * v[t, tile] for TV vectors of the head dim starting at i0.
template <class T, int G, int TV>
inline void accumulate_values(int D, const T* v, std::ptrdiff_t stride, int n,
                              const float (*s)[kChunk], float* acc, int i0, PrefetchQueue& pq,
                              int pq_step) {
  vfloat a[G][TV];
  for (int g = 0; g < G; ++g)
    for (int j = 0; j < TV; ++j) a[g][j] = load_vec(acc + g * D + (i0 + j) * kLanes);
  for (int t = 0; t < n; ++t) {
    pq.issue(pq_step);
    vfloat vv[TV];
    for (int j = 0; j < TV; ++j) vv[j] = load_vec(v + t * stride + (i0 + j) * kLanes);
    for (int g = 0; g < G; ++g) {
      const vfloat p = vfloat{} + s[g][t];
      for (int j = 0; j < TV; ++j) a[g][j] += p * vv[j];
    }
  }
  for (int g = 0; g < G; ++g)
    for (int j = 0; j < TV; ++j)
      std::memcpy(acc + g * D + (i0 + j) * kLanes, &a[g][j], sizeof(vfloat));
}

#if defined(__AVX512BF16__)
// bf16 on processors with AVX512-BF16: q.k straight from the stored bf16 pairs with vdpbf16ps
// (exact products, f32 accumulation), and V widened to f32 by interleaving each bf16 word with
// a zero word. That interleave works within 128-bit lanes, so the head dim lands in the
// accumulator permuted, the same way for every token; the permutation is undone only when the
// output is stored (acc_position). Needs D % 32 == 0.
constexpr bool kBf16Dot = true;

// Lane l of transpose_sum16(x) holds the sum of x[kBitReversed16[l]]'s lanes.
constexpr int kBitReversed16[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

// Horizontal sums of 16 vectors at once: each level adds the two halves of pairs of vectors
// interleaved, halving the vector count and the lanes each partial sum spans.
inline vfloat transpose_sum16(const vfloat (&x)[16]) {
  vfloat y[8], z[4], w[2];
  for (int m = 0; m < 8; ++m)
    y[m] = __builtin_shufflevector(x[2 * m], x[2 * m + 1], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19,
                                   20, 21, 22, 23) +
           __builtin_shufflevector(x[2 * m], x[2 * m + 1], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26,
                                   27, 28, 29, 30, 31);
  for (int m = 0; m < 4; ++m)
    z[m] = __builtin_shufflevector(y[2 * m], y[2 * m + 1], 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11,
                                   24, 25, 26, 27) +
           __builtin_shufflevector(y[2 * m], y[2 * m + 1], 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14,
                                   15, 28, 29, 30, 31);
  for (int m = 0; m < 2; ++m)
    w[m] = __builtin_shufflevector(z[2 * m], z[2 * m + 1], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25,
                                   12, 13, 28, 29) +
           __builtin_shufflevector(z[2 * m], z[2 * m + 1], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26,
                                   27, 14, 15, 30, 31);
  return __builtin_shufflevector(w[0], w[1], 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14,
                                 30) +
         __builtin_shufflevector(w[0], w[1], 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15,
                                 31);
}

// 32 K elements as bf16 pairs: stored, or e4m3 widened exactly (through f16 and f32: e4m3's
// 3-bit mantissas and every exponent, subnormals included, fit bf16).
inline __m512bh load_bf16x32(const Bf16* p) {
  return reinterpret_cast<__m512bh>(_mm512_loadu_si512(p));
}
inline __m512bh load_bf16x32(const E4m3* p) {
  using vu16x32 = std::uint16_t __attribute__((vector_size(64)));
  const vu16x32 h = e4m3_f16_bits(reinterpret_cast<vu16x32>(
      _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))));
  vu16 lo, hi;
  std::memcpy(&lo, &h, sizeof lo);
  std::memcpy(&hi, reinterpret_cast<const char*>(&h) + sizeof lo, sizeof hi);
  return _mm512_cvtne2ps_pbh(reinterpret_cast<__m512>(widen_f16(hi)),
                             reinterpret_cast<__m512>(widen_f16(lo)));
}

template <int G, int TT, class Kt>
inline void bf16_scores(const Bf16* q, float qscale, int D, const Kt* k, std::ptrdiff_t stride,
                        int t, float (*s)[kChunk]) {
  __m512 a[TT][G];
  for (int r = 0; r < TT; ++r)
    for (int g = 0; g < G; ++g) a[r][g] = _mm512_setzero_ps();
  for (int i = 0; i < D; i += 32) {
    __m512bh kv[TT];
    for (int r = 0; r < TT; ++r) kv[r] = load_bf16x32(k + (t + r) * stride + i);
    for (int g = 0; g < G; ++g) {
      const auto qv = reinterpret_cast<__m512bh>(_mm512_loadu_si512(q + g * D + i));
      for (int r = 0; r < TT; ++r) a[r][g] = _mm512_dpbf16_ps(a[r][g], qv, kv[r]);
    }
  }
  if constexpr (TT * G == 16) {
    // All 16 dot products reduced together: 15 additions instead of 16 lane trees.
    vfloat x[16];
    for (int g = 0; g < G; ++g)
      for (int r = 0; r < TT; ++r) x[g * TT + r] = reinterpret_cast<vfloat>(a[r][g]);
    float sums[16];
    const vfloat u = transpose_sum16(x) * qscale;
    std::memcpy(sums, &u, sizeof sums);
    for (int lane = 0; lane < 16; ++lane) {
      const int j = kBitReversed16[lane];
      s[j / TT][t + j % TT] = sums[lane];
    }
  } else {
    for (int r = 0; r < TT; ++r)
      for (int g = 0; g < G; ++g) s[g][t + r] = hsum(reinterpret_cast<vfloat>(a[r][g])) * qscale;
  }
}

// acc (permuted) += p * v for 2*TV vectors of 16 starting at element i0 (a multiple of 32).
template <int G, int TV>
inline void bf16_values(int D, const Bf16* v, std::ptrdiff_t stride, int n,
                        const float (*s)[kChunk], float* acc, int i0, PrefetchQueue& pq,
                        int pq_step) {
  __m512 a[G][2 * TV];
  for (int g = 0; g < G; ++g)
    for (int j = 0; j < 2 * TV; ++j) a[g][j] = _mm512_loadu_ps(acc + g * D + i0 + 16 * j);
  const __m512i zero = _mm512_setzero_si512();
  for (int t = 0; t < n; ++t) {
    pq.issue(pq_step);
    __m512 vv[2 * TV];
    for (int j = 0; j < TV; ++j) {
      const __m512i x = _mm512_loadu_si512(v + t * stride + i0 + 32 * j);
      vv[2 * j] = _mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, x));
      vv[2 * j + 1] = _mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, x));
    }
    for (int g = 0; g < G; ++g) {
      const __m512 p = _mm512_set1_ps(s[g][t]);
      for (int j = 0; j < 2 * TV; ++j) a[g][j] = _mm512_fmadd_ps(p, vv[j], a[g][j]);
    }
  }
  for (int g = 0; g < G; ++g)
    for (int j = 0; j < 2 * TV; ++j) _mm512_storeu_ps(acc + g * D + i0 + 16 * j, a[g][j]);
}
#else
constexpr bool kBf16Dot = false;
#endif

#if defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC)
// bf16 scores on aarch64 with the BF16 extension: BFDOT multiplies the stored bf16 pairs of q
// and k and adds both products to an f32 lane, so K is never widened. Rows are in the
// natural order (unlike the AVX-512 copy, V is widened as in the generic code). Needs
// D % 8 == 0.
template <int G, int TT>
inline void bfdot_scores(const Bf16* q, float qscale, int D, const Bf16* k, std::ptrdiff_t stride,
                         int t, float (*s)[kChunk]) {
  float32x4_t a[TT][G];
  for (int r = 0; r < TT; ++r)
    for (int g = 0; g < G; ++g) a[r][g] = vdupq_n_f32(0.0f);
  for (int i = 0; i < D; i += 8) {
    bfloat16x8_t kv[TT];
    for (int r = 0; r < TT; ++r) std::memcpy(&kv[r], k + (t + r) * stride + i, sizeof kv[r]);
    for (int g = 0; g < G; ++g) {
      bfloat16x8_t qv;
      std::memcpy(&qv, q + g * D + i, sizeof qv);
      for (int r = 0; r < TT; ++r) a[r][g] = vbfdotq_f32(a[r][g], qv, kv[r]);
    }
  }
  for (int r = 0; r < TT; ++r)
    for (int g = 0; g < G; ++g) s[g][t + r] = vaddvq_f32(a[r][g]) * qscale;
}
#endif

// Whether the accumulators of these types (of q, of K/V) and head dim hold the head dim
// permuted.
template <class Q, class Kv>
constexpr bool permuted_acc(int D) {
  return std::is_same_v<Q, Bf16> && std::is_same_v<Kv, Bf16> && kBf16Dot && D % 32 == 0;
}

// Position in the accumulator of head-dim element d (identity unless permuted_acc).
template <class Q, class Kv>
inline int acc_position(int d, int D) {
  if (!permuted_acc<Q, Kv>(D)) return d;
  const int chunk = d / 32 * 32, e = d % 32, lane = e / 8, w = e % 8;
  return chunk + (w < 4 ? 0 : 16) + 4 * lane + w % 4;
}

// Log2-domain online-softmax update of G heads with a chunk's scores: s becomes the weights.
template <int G>
inline void softmax_update(float (*s)[kChunk], int n, int D, HeadState<G>& st) {
  for (int g = 0; g < G; ++g) {
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (int r = 0; r < n; ++r) chunk_max = std::max(chunk_max, s[g][r]);
    const float m_new = std::max(st.m[g], chunk_max);
    const float corr =
        st.m[g] == -std::numeric_limits<float>::infinity() ? 0.0f : fast_exp2(st.m[g] - m_new);
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int r = 0; r < n; ++r) {
      s[g][r] = fast_exp2(s[g][r] - m_new);
      sum += s[g][r];
    }
    st.l[g] = st.l[g] * corr + sum;
    st.m[g] = m_new;
    if (corr != 1.0f)
      for (int x = 0; x < D; ++x) st.acc[g * D + x] *= corr;
  }
}

// Queries of G heads: f32 pre-multiplied by log2(e)/sqrt(D) for the generic kernels, and the
// stored values with the scale apart for kernels that read them in their own format.
template <class T>
struct QueryTile {
  const float* scaled;  // [G, D]
  const T* stored;      // [G, D]
  float scale;          // of the stored values: log2(e)/sqrt(D) times the K scale
};

// Folds n <= kChunk rows (row i at k + i*stride, likewise v) into the state of G heads.
// pq: lines of a later block to prefetch while this runs (drained by the end).
template <class Q, class T, int G>
void attend_rows(const QueryTile<Q>& q, int D, const T* k, const T* v, std::ptrdiff_t stride, int n,
                 HeadState<G>& st, PrefetchQueue& pq) {
  // Rows per pass and vectors per tile sized so accumulators fit the register file.
  constexpr int TT = std::max(1, (kRegisters - 3) / (G + 1));
  constexpr int TV = std::max(1, kRegisters / 2 / G);
  float s[G][kChunk];
#if defined(__AVX512BF16__)
  if constexpr (std::is_same_v<Q, Bf16> && std::is_same_v<T, Bf16>) {
    if (permuted_acc<Q, T>(D)) {
      // Rows per pass: 16 accumulators where the group divides 16 (reduced together).
      constexpr int TT2 = 16 % G == 0 ? 16 / G : std::max(1, (kRegisters - 2 - G) / G);
      constexpr int TV2 = std::max(1, kRegisters / 4 / G);
      // The prefetches spread over the score passes and the value rows alike.
      const int v_steps = n * ((D + 32 * TV2 - 1) / (32 * TV2));
      const int step = pq.per_step(v_steps + (n + TT2 - 1) / TT2);
      int t = 0;
      for (; t + TT2 <= n; t += TT2) {
        pq.issue(step);
        bf16_scores<G, TT2>(q.stored, q.scale, D, k, stride, t, s);
      }
      for (; t < n; ++t) bf16_scores<G, 1>(q.stored, q.scale, D, k, stride, t, s);
      softmax_update<G>(s, n, D, st);
      int i = 0;
      for (; i + 32 * TV2 <= D; i += 32 * TV2)
        bf16_values<G, TV2>(D, v, stride, n, s, st.acc, i, pq, step);
      for (; i < D; i += 32) bf16_values<G, 1>(D, v, stride, n, s, st.acc, i, pq, step);
      pq.issue(1 << 30);
      return;
    }
  }
#endif
  int t = 0;
#if defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC)
  if constexpr (std::is_same_v<Q, Bf16> && std::is_same_v<T, Bf16>) {
    if (D % 8 == 0) {
      for (; t + TT <= n; t += TT) bfdot_scores<G, TT>(q.stored, q.scale, D, k, stride, t, s);
      for (; t < n; ++t) bfdot_scores<G, 1>(q.stored, q.scale, D, k, stride, t, s);
    }
  }
#endif
#if defined(__AVX512BF16__)
  // e4m3 K under bf16 queries: q.k through vdpbf16ps as for bf16 K, half the FMAs of f32 (V is
  // widened to f32 below, so the accumulators keep the natural order).
  if constexpr (std::is_same_v<Q, Bf16> && std::is_same_v<T, E4m3>) {
    if (D % 32 == 0) {
      constexpr int TT2 = 16 % G == 0 ? 16 / G : std::max(1, (kRegisters - 2 - G) / G);
      for (; t + TT2 <= n; t += TT2) bf16_scores<G, TT2>(q.stored, q.scale, D, k, stride, t, s);
      for (; t < n; ++t) bf16_scores<G, 1>(q.stored, q.scale, D, k, stride, t, s);
    }
  }
#endif
  for (; t + TT <= n; t += TT) score_rows<T, G, TT>(q.scaled, D, k, stride, t, s);
  for (; t < n; ++t) score_rows<T, G, 1>(q.scaled, D, k, stride, t, s);
  softmax_update<G>(s, n, D, st);

  const int nv = D / kLanes;
  const int step = pq.per_step(n * std::max(1, (nv + TV - 1) / TV));
  int i = 0;
  for (; i + TV <= nv; i += TV)
    accumulate_values<T, G, TV>(D, v, stride, n, s, st.acc, i, pq, step);
  for (; i < nv; ++i) accumulate_values<T, G, 1>(D, v, stride, n, s, st.acc, i, pq, step);
  pq.issue(1 << 30);
  for (int d = nv * kLanes; d < D; ++d)
    for (int r = 0; r < n; ++r)
      for (int g = 0; g < G; ++g) st.acc[g * D + d] += s[g][r] * scalar_f32(v[r * stride + d]);
}

// A signal ends a call early: one task's history at L = 1M is seconds of work, and nothing may
// leave a parallel region by throwing. The chunk loops and the gather copy stop taking work
// once a signal is recorded; the call's output is then garbage, which the sampler and the
// checker drop (they test the flag after every call). The flag is read at a task's first chunk
// and once per 64 chunks after it.
class CancelCheck {
 public:
  bool operator()() {
    if (--until_next_ > 0) return false;
    until_next_ = kEvery;
    return interrupt_signal() != 0;
  }

 private:
  static constexpr int kEvery = 64;
  int until_next_ = 1;
};

// Where a sequence's rows live. Both sources hand out chunks of consecutive tokens whose rows
// hold all KV heads ([n, Hkv, D], row stride Hkv*D); a task over all heads reads each block as
// one contiguous run, a task over a group of KV heads the group's span of each row.
template <class T>
struct PagedRows {
  const T* k_pool;            // [num_blocks, S, Hkv, D]
  const T* v_pool;            // [num_blocks, S, Hkv, D]
  const std::int32_t* table;  // [blocks_per_seq] of this sequence
  int S;
  std::int64_t block_elems;  // S * Hkv * D

  // Blocks lie at random in the pool, so no hardware prefetcher can guess the next one. The
  // chunk callback gets the block kPrefetchAhead further on (or nulls); each pass of G heads
  // prefetches its share of the task's span of that block from inside the kernels' token
  // loops (PrefetchQueue).
  static constexpr int kPrefetchAhead = 2;

  template <class F>
  void for_each_chunk(std::int64_t t0, std::int64_t t1, F&& f) const {
    const std::int64_t end_blk = (t1 + S - 1) / S;
    CancelCheck cancel;
    for (std::int64_t t = t0; t < t1 && !cancel();) {
      const std::int64_t blk = t / S, in_blk = t % S;
      const int n = int(std::min<std::int64_t>({S - in_blk, t1 - t, kChunk}));
      const std::int64_t row = std::int64_t(table[blk]) * block_elems + in_blk * (block_elems / S);
      const T* ahead_k = nullptr;
      const T* ahead_v = nullptr;
      std::int64_t ahead_rows = 0;
      // Prefetch once per block: from its first chunk, or the slice's first if it starts inside;
      // only the rows the slice reads (a history's last block may be partly empty).
      if ((in_blk == 0 || t == t0) && blk + kPrefetchAhead < end_blk) {
        const std::int64_t next = std::int64_t(table[blk + kPrefetchAhead]) * block_elems;
        ahead_k = k_pool + next;
        ahead_v = v_pool + next;
        ahead_rows = std::min<std::int64_t>(S, t1 - (blk + kPrefetchAhead) * S);
      }
      f(k_pool + row, v_pool + row, n, ahead_k, ahead_v, ahead_rows);
      t += n;
    }
  }
};

template <class T>
struct ContiguousRows {
  const T* k;              // [L, Hkv, D] of this sequence
  const T* v;              // [L, Hkv, D]
  std::int64_t row_elems;  // Hkv * D

  template <class F>
  void for_each_chunk(std::int64_t t0, std::int64_t t1, F&& f) const {
    // Sequential: the hardware prefetcher follows it, nothing to prefetch by hand.
    CancelCheck cancel;
    for (std::int64_t t = t0; t < t1 && !cancel(); t += kChunk)
      f(k + t * row_elems, v + t * row_elems, int(std::min<std::int64_t>(kChunk, t1 - t)), nullptr,
        nullptr, 0);
  }
};

template <class T>
void store_out(std::byte* out, std::int64_t index, float x) {
  static_assert(!std::is_same_v<T, E4m3>, "e4m3 holds K/V only");
  if constexpr (std::is_same_v<T, float>)
    reinterpret_cast<float*>(out)[index] = x;
  else if constexpr (std::is_same_v<T, Bf16>)
    reinterpret_cast<std::uint16_t*>(out)[index] = float_to_bf16_bits(x);
  else
    reinterpret_cast<std::uint16_t*>(out)[index] = float_to_f16_bits(x);
}

// Online-softmax states of a task's query heads over its slice of the history: m and l per
// head, acc [heads, D]. Heads are visited G at a time (one GQA group or part of one).
struct SliceState {
  std::vector<float> m, l, acc;
  void reset(int heads, int D) {
    m.assign(std::size_t(heads), -std::numeric_limits<float>::infinity());
    l.assign(std::size_t(heads), 0.0f);
    acc.assign(std::size_t(heads) * std::size_t(D), 0.0f);
  }
};

// Runs every (sequence, KV-head group, history slice) task of split_work and merges slices.
// make_rows(b) returns the row source of sequence b. Q: q and the output; T: K/V.
template <class Q, class T, int G, class MakeRows>
void attend_all(const ReadInputs& h, std::byte* out, int threads, MakeRows make_rows) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const int D = sh.head_dim, Hq = sh.q_heads, group = sh.group();
  const std::int64_t L = w.length;
  const WorkSplit split = split_work(w, threads);
  const int groups = split.head_groups, splits = split.history_splits;
  // A task's query heads: whole GQA groups, so a pass of G heads never straddles KV heads.
  const int heads = Hq / groups;
  const std::int64_t tasks = std::int64_t(sh.batch) * groups * splits;
  const float qscale = float(1.4426950408889634 / std::sqrt(double(D)));  // log2(e)/sqrt(D)
  // Quantized K/V: the K scale goes into the scaled queries, the V scale into the output.
  const float kv_scale = w.kv_scale() * kLoadUnit<T>;  // times a power of two: exact
  const Q* q = reinterpret_cast<const Q*>(h.q);
  std::vector<SliceState> slices(splits > 1 ? std::size_t(tasks) : 0);
  const std::int64_t row_bytes = std::int64_t(sh.kv_heads) * D * std::int64_t(sizeof(T));
  const std::int64_t span_bytes = row_bytes / groups;

#pragma omp parallel num_threads(threads)
  {
    std::vector<float> qs(static_cast<std::size_t>(heads * D));
    SliceState local;
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < tasks; ++task) {
      const int slice = int(task % splits), grp = int(task / splits % groups);
      const std::int64_t b = task / splits / groups;
      const std::int64_t first_q = b * Hq + std::int64_t(grp) * heads;  // [B, Hq] index
      for (int i = 0; i < heads * D; ++i)
        qs[std::size_t(i)] = scalar_f32(q[first_q * D + i]) * qscale * kv_scale;
      SliceState& st = splits > 1 ? slices[std::size_t(task)] : local;
      st.reset(heads, D);
      const auto [first_block, end_block] = split.slice_blocks(w.blocks_per_seq(), slice);
      const std::int64_t t0 = std::min(L, first_block * sh.block_size);
      const std::int64_t t1 = std::min(L, end_block * sh.block_size);
      make_rows(int(b)).for_each_chunk(
          t0, t1,
          [&](const T* k, const T* v, int n, const T* ahead_k, const T* ahead_v,
              std::int64_t ahead_rows) {
            for (int hq = 0; hq < heads; hq += G) {
              PrefetchQueue pq =
                  PrefetchQueue::part(ahead_k, ahead_v, ahead_rows, row_bytes, grp * span_bytes,
                                      span_bytes, hq / G, heads / G);
              const std::int64_t head_off = std::int64_t((grp * heads + hq) / group) * D;
              HeadState<G> hs{st.m.data() + hq, st.l.data() + hq,
                              st.acc.data() + std::size_t(hq) * D};
              const QueryTile<Q> qt{qs.data() + std::size_t(hq) * D, q + (first_q + hq) * D,
                                    qscale * kv_scale};
              attend_rows<Q, T, G>(qt, D, k + head_off, v + head_off,
                                   std::ptrdiff_t(sh.kv_heads) * D, n, hs, pq);
            }
          });
      if (splits == 1)
        for (int hq = 0; hq < heads; ++hq)
          for (int d = 0; d < D; ++d)
            store_out<Q>(out, (first_q + hq) * D + d,
                         st.acc[std::size_t(hq) * D + acc_position<Q, T>(d, D)] /
                             st.l[std::size_t(hq)] * kv_scale);
    }
    if (splits > 1) {
      // Merge the slices of each (sequence, head): rescale each to the largest maximum.
      std::vector<float> acc(static_cast<std::size_t>(D));
#pragma omp for schedule(static)
      for (std::int64_t bh = 0; bh < std::int64_t(sh.batch) * Hq; ++bh) {
        const std::int64_t b = bh / Hq;
        const int grp = int(bh % Hq) / heads;
        const std::size_t hq = std::size_t(bh % Hq % heads);  // within its task
        const SliceState* part = &slices[std::size_t((b * groups + grp) * splits)];
        float m = -std::numeric_limits<float>::infinity(), l = 0;
        for (int s = 0; s < splits; ++s) m = std::max(m, part[s].m[hq]);
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int s = 0; s < splits; ++s) {
          const SliceState& p = part[s];
          if (p.l[hq] == 0) continue;  // no slice is empty (slice_blocks); a guard all the same
          const float f = fast_exp2(p.m[hq] - m);
          l += p.l[hq] * f;
          for (int d = 0; d < D; ++d) acc[std::size_t(d)] += p.acc[hq * std::size_t(D) + d] * f;
        }
        for (int d = 0; d < D; ++d)
          store_out<Q>(out, bh * D + d, acc[std::size_t(acc_position<Q, T>(d, D))] / l * kv_scale);
      }
    }
  }
}

// Compile-time group size: the largest of 8, 4, 2, 1 that divides the GQA ratio; a larger
// group runs as several passes over the same (cached) rows.
template <class Q, class T, class MakeRows>
void dispatch_group(const ReadInputs& h, std::byte* out, int threads, MakeRows make_rows) {
  const int group = h.workload.shape.group();
  if (group % 8 == 0) return attend_all<Q, T, 8>(h, out, threads, make_rows);
  if (group % 4 == 0) return attend_all<Q, T, 4>(h, out, threads, make_rows);
  if (group % 2 == 0) return attend_all<Q, T, 2>(h, out, threads, make_rows);
  attend_all<Q, T, 1>(h, out, threads, make_rows);
}

template <class Q, class T>
void fused_typed(const ReadInputs& h, std::byte* out, int threads) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const auto* k = reinterpret_cast<const T*>(h.k_pool);
  const auto* v = reinterpret_cast<const T*>(h.v_pool);
  const std::int32_t* table = h.table;
  const std::int64_t block_elems = std::int64_t(sh.block_size) * sh.kv_heads * sh.head_dim;
  dispatch_group<Q, T>(h, out, threads, [&](int b) {
    return PagedRows<T>{k, v, table + std::int64_t(b) * w.blocks_per_seq(), sh.block_size,
                        block_elems};
  });
}

template <class Q, class T>
void gather_typed(const ReadInputs& h, std::byte* out, GatherWorkspace ws, int threads) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const std::int64_t L = w.length, S = sh.block_size;
  const std::int64_t row_elems = std::int64_t(sh.kv_heads) * sh.head_dim;
  const std::int64_t blocks = w.blocks_per_seq();
  const auto* k_pool = reinterpret_cast<const T*>(h.k_pool);
  const auto* v_pool = reinterpret_cast<const T*>(h.v_pool);
  auto* ck = reinterpret_cast<T*>(ws.k);  // [B, L, Hkv, D]
  auto* cv = reinterpret_cast<T*>(ws.v);
  const std::int32_t* table = h.table;

  // Materialise: each block's valid rows are one contiguous run in the pool and in the copy.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t job = 0; job < sh.batch * blocks; ++job) {
    if (interrupt_signal() != 0) continue;  // a load per block copied: nothing next to it
    const std::int64_t b = job / blocks, blk = job % blocks;
    const std::size_t bytes = std::size_t(std::min(S, L - blk * S) * row_elems) * sizeof(T);
    const std::int64_t src = std::int64_t(table[b * blocks + blk]) * S * row_elems;
    const std::int64_t dst = (b * L + blk * S) * row_elems;
    std::memcpy(ck + dst, k_pool + src, bytes);
    std::memcpy(cv + dst, v_pool + src, bytes);
  }
  dispatch_group<Q, T>(h, out, threads, [&](int b) {
    return ContiguousRows<T>{ck + b * L * row_elems, cv + b * L * row_elems, row_elems};
  });
}

// The storage types of q (and the output) and of K/V: K/V in q's type, or e4m3
// (validate_dtypes refuses the rest).
template <class F>
void with_types(const Workload& w, F&& f) {
  const bool fp8 = w.kv_dtype() == DType::e4m3;
  switch (w.dtype) {
    case DType::f32:
      return fp8 ? f(float{}, E4m3{}) : f(float{}, float{});
    case DType::f16:
      return fp8 ? f(F16{}, E4m3{}) : f(F16{}, F16{});
    case DType::bf16:
      return fp8 ? f(Bf16{}, E4m3{}) : f(Bf16{}, Bf16{});
    case DType::e4m3:
      break;
  }
}

}  // namespace

void widen_e4m3(const std::uint8_t* codes, std::size_t n, float* out) {
  const auto* p = reinterpret_cast<const E4m3*>(codes);
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const vfloat v = load_vec(p + i) * kE4m3LoadUnit;
    std::memcpy(out + i, &v, sizeof v);
  }
  for (; i < n; ++i) out[i] = scalar_f32(p[i]) * kE4m3LoadUnit;
}

void widen_e4m3_to_bf16(const std::uint8_t* codes, std::size_t n, std::uint16_t* out) {
  const auto* p = reinterpret_cast<const E4m3*>(codes);
  std::size_t i = 0;
#if defined(__AVX512BF16__)
  for (; i + 32 <= n; i += 32) {
    const __m512bh v = load_bf16x32(p + i);
    std::memcpy(out + i, &v, sizeof v);
  }
#endif
  for (; i < n; ++i) out[i] = float_to_bf16_bits(scalar_f32(p[i]));
}

void fused_read(const ReadInputs& h, std::byte* out, int threads) {
  with_types(h.workload,
             [&](auto q, auto kv) { fused_typed<decltype(q), decltype(kv)>(h, out, threads); });
}

void gather_read(const ReadInputs& h, std::byte* out, GatherWorkspace ws, int threads) {
  with_types(h.workload, [&](auto q, auto kv) {
    gather_typed<decltype(q), decltype(kv)>(h, out, ws, threads);
  });
}

}  // namespace readbench::cpu::READBENCH_CPU_ISA
