#include "backends/cpu/paged_attention.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace readbench::cpu {

namespace {

// Tag types so f16 and bf16 (both 16-bit words) select different conversions.
struct Bf16 {
  std::uint16_t bits;
};
struct F16 {
  std::uint16_t bits;
};

template <int W>
inline void to_f32(const float* src, float* dst) {
  for (int j = 0; j < W; ++j) dst[j] = src[j];
}
template <int W>
inline void to_f32(const Bf16* src, float* dst) {
  for (int j = 0; j < W; ++j) dst[j] = std::bit_cast<float>(std::uint32_t(src[j].bits) << 16);
}
template <int W>
inline void to_f32(const F16* src, float* dst) {
#if defined(__F16C__)
  static_assert(W % 8 == 0);
  for (int j = 0; j < W; j += 8)
    _mm256_storeu_ps(dst + j,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + j))));
#else
  for (int j = 0; j < W; ++j) dst[j] = f16_bits_to_float(src[j].bits);
#endif
}

inline float scalar_f32(float x) { return x; }
inline float scalar_f32(Bf16 x) { return bf16_bits_to_float(x.bits); }
inline float scalar_f32(F16 x) { return f16_bits_to_float(x.bits); }

// 2^x for x <= 0 by round-to-nearest range reduction and a degree-7 Taylor polynomial on
// [-0.5, 0.5] (relative error about 5e-9, far below f32 tolerance); plain arithmetic so the
// loops around it vectorise, unlike a libm call.
inline float fast_exp2(float x) {
  x = std::max(x, -125.0f);
  const float xi = __builtin_roundf(x);
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
  float m[G];
  float l[G];
  float* acc;  // [G, D]
};

// Folds n <= kChunk rows (row i at k + i*stride, likewise v) into the state of G heads.
// qs: [G, D] f32 queries pre-multiplied by log2(e)/sqrt(D).
template <class T, int G>
void attend_rows(const float* qs, int D, const T* k, const T* v, std::ptrdiff_t stride, int n,
                 HeadState<G>& st) {
  constexpr int W = G <= 4 ? 16 : 8;  // register tile: G*W floats of accumulators
  float s[G][kChunk];
  for (int t = 0; t < n; ++t) {
    const T* row = k + t * stride;
    float part[G][W] = {};
    int d = 0;
    for (; d + W <= D; d += W) {
      float kt[W];
      to_f32<W>(row + d, kt);
      for (int g = 0; g < G; ++g)
        for (int j = 0; j < W; ++j) part[g][j] += qs[g * D + d + j] * kt[j];
    }
    for (int g = 0; g < G; ++g) {
      float dot = 0;
      for (int j = 0; j < W; ++j) dot += part[g][j];
      for (int r = d; r < D; ++r) dot += qs[g * D + r] * scalar_f32(row[r]);
      s[g][t] = dot;
    }
  }
  for (int g = 0; g < G; ++g) {
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (int t = 0; t < n; ++t) chunk_max = std::max(chunk_max, s[g][t]);
    const float m_new = std::max(st.m[g], chunk_max);
    const float corr = st.m[g] == -std::numeric_limits<float>::infinity()
                           ? 0.0f
                           : fast_exp2(st.m[g] - m_new);
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int t = 0; t < n; ++t) {
      s[g][t] = fast_exp2(s[g][t] - m_new);
      sum += s[g][t];
    }
    st.l[g] = st.l[g] * corr + sum;
    st.m[g] = m_new;
    if (corr != 1.0f)
      for (int x = 0; x < D; ++x) st.acc[g * D + x] *= corr;
  }
  int d = 0;
  for (; d + W <= D; d += W) {
    float a[G][W];
    for (int g = 0; g < G; ++g)
      for (int j = 0; j < W; ++j) a[g][j] = st.acc[g * D + d + j];
    for (int t = 0; t < n; ++t) {
      float vt[W];
      to_f32<W>(v + t * stride + d, vt);
      for (int g = 0; g < G; ++g)
        for (int j = 0; j < W; ++j) a[g][j] += s[g][t] * vt[j];
    }
    for (int g = 0; g < G; ++g)
      for (int j = 0; j < W; ++j) st.acc[g * D + d + j] = a[g][j];
  }
  for (; d < D; ++d)
    for (int t = 0; t < n; ++t)
      for (int g = 0; g < G; ++g) st.acc[g * D + d] += s[g][t] * scalar_f32(v[t * stride + d]);
}

// Where a task's rows live: the paged pool through the block table, or a contiguous copy.
template <class T>
struct PagedRows {
  const T* k_pool;               // [num_blocks, S, Hkv, D]
  const T* v_pool;               // [num_blocks, S, Hkv, D]
  const std::int32_t* table;     // [blocks_per_seq] of this sequence
  int S, Hkv, D, head;

  template <class F>
  void for_each_chunk(std::int64_t t0, std::int64_t t1, F&& f) const {
    const std::ptrdiff_t stride = std::ptrdiff_t(Hkv) * D;
    for (std::int64_t t = t0; t < t1;) {
      const std::int64_t blk = t / S, in_blk = t % S;
      const int n = int(std::min<std::int64_t>({S - in_blk, t1 - t, kChunk}));
      const std::int64_t off = ((std::int64_t(table[blk]) * S + in_blk) * Hkv + head) * D;
      f(k_pool + off, v_pool + off, stride, n);
      t += n;
    }
  }
};

template <class T>
struct ContiguousRows {
  const T* k;  // [L, D] of this (sequence, head)
  const T* v;  // [L, D]
  int D;

  template <class F>
  void for_each_chunk(std::int64_t t0, std::int64_t t1, F&& f) const {
    for (std::int64_t t = t0; t < t1; t += kChunk) {
      const int n = int(std::min<std::int64_t>(kChunk, t1 - t));
      f(k + t * D, v + t * D, std::ptrdiff_t(D), n);
    }
  }
};

struct Partial {  // one slice's state for G heads: m[G], l[G], acc[G, D]
  std::vector<float> m, l, acc;
};

template <class T>
void store_out(std::byte* out, std::int64_t index, float x) {
  if constexpr (std::is_same_v<T, float>)
    reinterpret_cast<float*>(out)[index] = x;
  else if constexpr (std::is_same_v<T, Bf16>)
    reinterpret_cast<std::uint16_t*>(out)[index] = float_to_bf16_bits(x);
  else
    reinterpret_cast<std::uint16_t*>(out)[index] = float_to_f16_bits(x);
}

// Runs every (sequence, KV head, slice) task, G query heads at a time, and merges slices.
// make_rows(b, kv_head) returns the row source for that sequence and head.
template <class T, int G, class MakeRows>
void attend_all(const HostWorkload& h, int replica, std::byte* out, int threads,
                MakeRows make_rows) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const int D = sh.head_dim, group = sh.group(), subgroups = group / G;
  const std::int64_t L = w.length;
  const int splits = history_splits(w, threads);
  // Slice boundaries on block boundaries, so a slice never splits a block's rows.
  const std::int64_t blocks = w.blocks_per_seq();
  const std::int64_t blocks_per_split = (blocks + splits - 1) / splits;
  const std::int64_t tasks = std::int64_t(sh.batch) * sh.kv_heads * subgroups * splits;
  const float qscale = float(1.4426950408889634 / std::sqrt(double(D)));  // log2(e)/sqrt(D)
  const T* q = reinterpret_cast<const T*>(h.query(replica));
  std::vector<Partial> partials(splits > 1 ? std::size_t(tasks) : 0);

#pragma omp parallel num_threads(threads)
  {
    std::vector<float> qs(static_cast<std::size_t>(G * D)), acc(static_cast<std::size_t>(G * D));
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < tasks; ++task) {
      const int split = int(task % splits);
      const std::int64_t head_task = task / splits;  // (b, kv head, subgroup)
      const int sub = int(head_task % subgroups);
      const int kvh = int(head_task / subgroups % sh.kv_heads);
      const int b = int(head_task / subgroups / sh.kv_heads);
      const int hq0 = kvh * group + sub * G;
      for (int g = 0; g < G; ++g)
        for (int d = 0; d < D; ++d)
          qs[std::size_t(g) * D + d] =
              scalar_f32(q[(std::int64_t(b) * sh.q_heads + hq0 + g) * D + d]) * qscale;
      HeadState<G> st;
      std::fill(acc.begin(), acc.end(), 0.0f);
      st.acc = acc.data();
      for (int g = 0; g < G; ++g) {
        st.m[g] = -std::numeric_limits<float>::infinity();
        st.l[g] = 0;
      }
      const std::int64_t t0 = std::min(L, split * blocks_per_split * sh.block_size);
      const std::int64_t t1 = std::min(L, (split + 1) * blocks_per_split * sh.block_size);
      make_rows(b, kvh).for_each_chunk(
          t0, t1, [&](const T* k, const T* v, std::ptrdiff_t stride, int n) {
            attend_rows<T, G>(qs.data(), D, k, v, stride, n, st);
          });
      if (splits == 1) {
        for (int g = 0; g < G; ++g)
          for (int d = 0; d < D; ++d)
            store_out<T>(out, (std::int64_t(b) * sh.q_heads + hq0 + g) * D + d,
                         acc[std::size_t(g) * D + d] / st.l[g]);
      } else {
        Partial& p = partials[std::size_t(task)];
        p.m.assign(st.m, st.m + G);
        p.l.assign(st.l, st.l + G);
        p.acc = acc;
      }
    }
    if (splits > 1) {
      // Merge the slices of each (b, kv head, subgroup): rescale to the largest maximum.
#pragma omp for schedule(static)
      for (std::int64_t head_task = 0; head_task < tasks / splits; ++head_task) {
        const int sub = int(head_task % subgroups);
        const int kvh = int(head_task / subgroups % sh.kv_heads);
        const int b = int(head_task / subgroups / sh.kv_heads);
        const int hq0 = kvh * group + sub * G;
        for (int g = 0; g < G; ++g) {
          float m = -std::numeric_limits<float>::infinity();
          for (int s = 0; s < splits; ++s) m = std::max(m, partials[head_task * splits + s].m[g]);
          float l = 0;
          std::fill(acc.begin(), acc.begin() + D, 0.0f);
          for (int s = 0; s < splits; ++s) {
            const Partial& p = partials[head_task * splits + s];
            if (p.l[g] == 0) continue;  // an empty slice (more slices than blocks)
            const float f = fast_exp2(p.m[g] - m);
            l += p.l[g] * f;
            for (int d = 0; d < D; ++d) acc[d] += p.acc[std::size_t(g) * D + d] * f;
          }
          for (int d = 0; d < D; ++d)
            store_out<T>(out, (std::int64_t(b) * sh.q_heads + hq0 + g) * D + d, acc[d] / l);
        }
      }
    }
  }
}

// Compile-time group size: the largest of 8, 4, 2, 1 that divides the GQA ratio; larger or
// odd groups run as several subgroups over the same (cached) rows.
template <class T, class MakeRows>
void dispatch_group(const HostWorkload& h, int replica, std::byte* out, int threads,
                    MakeRows make_rows) {
  const int group = h.workload.shape.group();
  if (group % 8 == 0) return attend_all<T, 8>(h, replica, out, threads, make_rows);
  if (group % 4 == 0) return attend_all<T, 4>(h, replica, out, threads, make_rows);
  if (group % 2 == 0) return attend_all<T, 2>(h, replica, out, threads, make_rows);
  attend_all<T, 1>(h, replica, out, threads, make_rows);
}

template <class T>
void fused_typed(const HostWorkload& h, int replica, std::byte* out, int threads) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const auto* k = reinterpret_cast<const T*>(h.k_pool.data());
  const auto* v = reinterpret_cast<const T*>(h.v_pool.data());
  const std::int32_t* table = h.table(replica);
  dispatch_group<T>(h, replica, out, threads, [&](int b, int kvh) {
    return PagedRows<T>{k, v, table + std::int64_t(b) * w.blocks_per_seq(), sh.block_size,
                        sh.kv_heads, sh.head_dim, kvh};
  });
}

template <class T>
void gather_typed(const HostWorkload& h, int replica, std::byte* out, GatherWorkspace ws,
                  int threads) {
  const Workload& w = h.workload;
  const Shape& sh = w.shape;
  const std::int64_t L = w.length, S = sh.block_size, Hkv = sh.kv_heads, D = sh.head_dim;
  const std::int64_t blocks = w.blocks_per_seq();
  const auto* k_pool = reinterpret_cast<const T*>(h.k_pool.data());
  const auto* v_pool = reinterpret_cast<const T*>(h.v_pool.data());
  auto* ck = reinterpret_cast<T*>(ws.k);  // [B, Hkv, L, D]
  auto* cv = reinterpret_cast<T*>(ws.v);
  const std::int32_t* table = h.table(replica);
  const std::size_t row_bytes = std::size_t(D) * sizeof(T);

#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t job = 0; job < sh.batch * blocks; ++job) {
    const std::int64_t b = job / blocks, blk = job % blocks;
    const std::int64_t rows = std::min(S, L - blk * S);
    for (std::int64_t j = 0; j < rows; ++j)
      for (std::int64_t hk = 0; hk < Hkv; ++hk) {
        const std::int64_t src = ((std::int64_t(table[b * blocks + blk]) * S + j) * Hkv + hk) * D;
        const std::int64_t dst = ((b * Hkv + hk) * L + blk * S + j) * D;
        std::memcpy(ck + dst, k_pool + src, row_bytes);
        std::memcpy(cv + dst, v_pool + src, row_bytes);
      }
  }
  dispatch_group<T>(h, replica, out, threads, [&](int b, int kvh) {
    const std::int64_t base = (std::int64_t(b) * Hkv + kvh) * L * D;
    return ContiguousRows<T>{ck + base, cv + base, sh.head_dim};
  });
}

}  // namespace

int history_splits(const Workload& w, int threads) {
  const std::int64_t heads = std::int64_t(w.shape.batch) * w.shape.kv_heads;
  // Two tasks per thread balance uneven progress; never more slices than blocks.
  const std::int64_t wanted = (2 * std::int64_t(threads) + heads - 1) / heads;
  return int(std::clamp<std::int64_t>(wanted, 1, std::max<std::int64_t>(1, w.blocks_per_seq())));
}

void fused_read(const HostWorkload& h, int replica, std::byte* out, int threads) {
  switch (h.workload.dtype) {
    case DType::f32: return fused_typed<float>(h, replica, out, threads);
    case DType::f16: return fused_typed<F16>(h, replica, out, threads);
    case DType::bf16: return fused_typed<Bf16>(h, replica, out, threads);
  }
}

void gather_read(const HostWorkload& h, int replica, std::byte* out, GatherWorkspace ws,
                 int threads) {
  switch (h.workload.dtype) {
    case DType::f32: return gather_typed<float>(h, replica, out, ws, threads);
    case DType::f16: return gather_typed<F16>(h, replica, out, ws, threads);
    case DType::bf16: return gather_typed<Bf16>(h, replica, out, ws, threads);
  }
}

}  // namespace readbench::cpu
