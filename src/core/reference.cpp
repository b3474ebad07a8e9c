#include "core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/interrupt.hpp"

namespace readbench {

std::vector<double> reference_attention(const HostWorkload& h, int replica) {
  const Workload& w = h.workload;
  const Shape& s = w.shape;
  const std::int64_t L = w.length, D = s.head_dim, Hkv = s.kv_heads, S = s.block_size;
  const std::int32_t* table = h.table(replica);
  const std::byte* q = h.query(replica);
  const double scale = 1.0 / std::sqrt(double(D));
  // Attention over the dequantized K/V: stored values times their scale, exactly in f64.
  const DType kv = w.kv_dtype();
  const double kv_scale = w.kv_scale();
  std::vector<double> out(std::size_t(w.io_elements()));

#pragma omp parallel for collapse(2) schedule(dynamic)
  for (int b = 0; b < s.batch; ++b) {
    for (int hq = 0; hq < s.q_heads; ++hq) {
      // A head at the longest checked lengths takes a good fraction of a second: a signal skips
      // the heads not yet computed (nothing may leave a parallel region by throwing).
      if (interrupt_signal() != 0) continue;
      const int hk = hq / s.group();
      std::vector<double> qv(static_cast<std::size_t>(D)), acc(static_cast<std::size_t>(D), 0.0);
      for (std::int64_t d = 0; d < D; ++d)
        qv[d] = load_as(w.dtype, q, std::size_t((std::int64_t(b) * s.q_heads + hq) * D + d));
      // One pass with a running maximum (online softmax, in f64): no buffer of L scores.
      double max_score = -std::numeric_limits<double>::infinity(), denom = 0;
      for (std::int64_t t = 0; t < L; ++t) {
        const std::int64_t block = table[b * w.blocks_per_seq() + t / S];
        const std::int64_t base = ((block * S + t % S) * Hkv + hk) * D;
        double dot = 0;
        for (std::int64_t d = 0; d < D; ++d)
          dot += qv[d] * (kv_scale * load_as(kv, h.k_pool.data(), std::size_t(base + d)));
        const double score = dot * scale;
        if (score > max_score) {
          const double shrink = std::exp(max_score - score);
          denom *= shrink;
          for (double& a : acc) a *= shrink;
          max_score = score;
        }
        const double p = std::exp(score - max_score);
        denom += p;
        for (std::int64_t d = 0; d < D; ++d)
          acc[d] += p * (kv_scale * load_as(kv, h.v_pool.data(), std::size_t(base + d)));
      }
      for (std::int64_t d = 0; d < D; ++d)
        out[std::size_t((std::int64_t(b) * s.q_heads + hq) * D + d)] = acc[d] / denom;
    }
  }
  throw_if_interrupted();
  return out;
}

double relative_error(const std::vector<double>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size())
    throw InputError("output has " + std::to_string(out.size()) + " elements, reference has " +
                     std::to_string(ref.size()));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) return std::numeric_limits<double>::infinity();
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double tolerance(DType t, std::int64_t length) {
  switch (t) {
    case DType::f32:
      // The kernels' f32 running sums over L tokens round like a random walk: measured about
      // 0.4 * 2^-24 * sqrt(L) on one CPU thread (f32 D=4, L up to 4M); 2^-23 * sqrt(L) keeps
      // a factor of five above that, and takes over from 1e-5 past L = 7,000.
      return std::max(1e-5, std::ldexp(std::sqrt(double(std::max<std::int64_t>(length, 0))), -23));
    case DType::f16:
      return 2e-3;
    case DType::bf16:
      return 1e-2;
    case DType::e4m3:  // never q's type (reference.hpp)
      break;
  }
  return 0;
}

}  // namespace readbench
