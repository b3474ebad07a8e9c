#include "core/paired.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <boost/math/distributions/binomial.hpp>

#include "core/errors.hpp"
#include "core/marginal_cost_fit.hpp"
#include "core/power_law_fit.hpp"
#include "core/statistics.hpp"
#include "core/strprintf.hpp"

namespace readbench {

AbVerdict parse_ab_verdict(std::string_view s) {
  if (const auto v = find_named(kAbVerdictNames, s)) return *v;
  throw InputError("unknown verdict '" + std::string(s) + "' (expected " +
                   names_of(kAbVerdictNames) + ")");
}

AbVerdict verdict_against(const std::optional<Interval>& ci, double bound) {
  if (!ci) return AbVerdict::inconclusive;
  if (ci->low > bound) return AbVerdict::regression;
  if (ci->high <= bound) return AbVerdict::pass;
  return AbVerdict::inconclusive;
}

namespace {

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// The rank k (1-based) of the lower end of the binomial 95% interval for a median of n: the
// largest k with P(X <= k - 1) <= 0.025 for X ~ Binomial(n, 1/2), so that [x_(k), x_(n+1-k)]
// holds the median with probability 1 - 2 P(X <= k - 1) >= 0.95 whatever the distribution.
// 0 where n is too small for any (n < 6).
int median_ci_rank(int n) {
  const boost::math::binomial_distribution<double> b(n, 0.5);
  // Start a little below the normal approximation n/2 - 1.96 sqrt(n)/2 and step up.
  int k = std::max(0, int(std::floor(0.5 * n - 0.98 * std::sqrt(double(n)))) - 3);
  if (k > 0 && boost::math::cdf(b, k - 1) > 0.025) k = 0;
  while (k < n && boost::math::cdf(b, k) <= 0.025) ++k;
  return k;
}

// Least-squares slope of y on x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double mx = mean_of(x), my = mean_of(y);
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxy / sxx;
}

// The region's two statistics from each length's centre log-ratio: delta_p and the cost ratio.
struct RegionEstimate {
  double delta_p = 0, cost_ratio = 1;
};

struct Region {
  std::vector<double> log_length, base_s;  // the region's lengths, and the base's median times

  RegionEstimate estimate(const std::vector<double>& centre_log_ratio) const {
    RegionEstimate e;
    e.delta_p = slope(log_length, centre_log_ratio);
    std::vector<TimedPoint> base, head;
    for (std::size_t i = 0; i < base_s.size(); ++i) {
      const double length = std::exp(log_length[i]);
      base.push_back({length, base_s[i]});
      head.push_back({length, base_s[i] * std::exp(centre_log_ratio[i])});
    }
    const double b_base = fit_affine(base).marginal_s;
    const double b_head = fit_affine(head).marginal_s;
    // A base whose time does not grow over the region has no marginal cost to compare with.
    e.cost_ratio = b_base > 0 ? b_head / b_base : std::nan("");
    return e;
  }
};

// The q-quantile of sorted `v` by linear interpolation (type 7, as R and numpy default to).
double quantile(const std::vector<double>& v, double q) {
  const double h = q * double(v.size() - 1);
  const std::size_t lo = std::size_t(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
}

std::optional<Interval> percentile_interval(std::vector<double> v) {
  std::erase_if(v, [](double x) { return !std::isfinite(x); });
  // A statistic undefined in more than a few resamples has no interval worth reading.
  if (v.size() < std::size_t(kBootstrapResamples) * 95 / 100) return std::nullopt;
  std::sort(v.begin(), v.end());
  return Interval{quantile(v, 0.025), quantile(v, 0.975)};
}

// The variance of an offset per length: the region's centre log-ratios m_i about their least-
// squares line in log L, less what their sampling variances v_i explain. With hat values h_i,
// E[sum of squared residuals] = sum (1 - h_i) (tau^2 + v_i), and sum (1 - h_i) = K - 2; so
// tau^2 = (RSS - sum (1 - h_i) v_i) / (K - 2), floored at 0. Needs 3 lengths.
double between_lengths_variance(const std::vector<double>& x, const std::vector<double>& m,
                                const std::vector<double>& v) {
  const std::size_t k = x.size();
  if (k < 3) return 0;
  const double mx = mean_of(x), b = slope(x, m), a = mean_of(m) - b * mx;
  double sxx = 0;
  for (double xi : x) sxx += (xi - mx) * (xi - mx);
  double rss = 0, explained = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double r = m[i] - (a + b * x[i]);
    const double h = 1.0 / double(k) + (x[i] - mx) * (x[i] - mx) / sxx;
    rss += r * r;
    explained += (1 - h) * v[i];
  }
  return std::max(0.0, (rss - explained) / double(k - 2));
}

// The same excess about the ratio of two lines t0 + b*L: the base's, fitted to its per-length
// times, and the head's, fitted to those times scaled by exp(m). Its residuals are the head's
// misfit less the base's, zero for any constant ratio. The hat values are the head fit's, from
// its Jacobian in log t, (1, L) / t_head (L scaled by the longest: the hat matrix does not
// change). Empty where either fit fails or predicts a time <= 0.
std::optional<double> between_lengths_variance_affine(const std::vector<double>& x,
                                                      const std::vector<double>& m,
                                                      const std::vector<double>& v,
                                                      const std::vector<double>& base_s) {
  const std::size_t k = x.size();
  if (k < 3) return 0.0;
  std::vector<TimedPoint> base, head;
  for (std::size_t i = 0; i < k; ++i) {
    base.push_back({std::exp(x[i]), base_s[i]});
    head.push_back({std::exp(x[i]), base_s[i] * std::exp(m[i])});
  }
  AffineFit fb, fh;
  try {
    fb = fit_affine(base);
    fh = fit_affine(head);
  } catch (const FitError&) {
    return std::nullopt;
  }
  const double l_max = std::exp(x.back());
  std::vector<double> r(k), j0(k), j1(k);
  double a00 = 0, a01 = 0, a11 = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double length = std::exp(x[i]);
    const double tb = fb.fixed_s + fb.marginal_s * length, th = fh.fixed_s + fh.marginal_s * length;
    if (!(tb > 0) || !(th > 0)) return std::nullopt;
    r[i] = m[i] - std::log(th / tb);
    j0[i] = 1 / th;
    j1[i] = length / l_max / th;
    a00 += j0[i] * j0[i];
    a01 += j0[i] * j1[i];
    a11 += j1[i] * j1[i];
  }
  const double det = a00 * a11 - a01 * a01;
  if (!(det > 0)) return std::nullopt;
  double rss = 0, explained = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double h = (j0[i] * j0[i] * a11 - 2 * j0[i] * j1[i] * a01 + j1[i] * j1[i] * a00) / det;
    rss += r[i] * r[i];
    explained += (1 - h) * v[i];
  }
  return std::max(0.0, (rss - explained) / double(k - 2));
}

std::string fixed(double v, int digits) {
  return strprintf("%.*f", digits, v);
}

}  // namespace

PairedComparison compare_pairs(const std::vector<PairedLength>& lengths, double fit_from,
                               const PairedThresholds& thresholds, PairedMethod method,
                               std::uint64_t seed) {
  const bool by_median = method == PairedMethod::median;
  const int enough_pairs = min_pairs(method);
  PairedComparison out;
  out.fit_from = fit_from;
  std::vector<std::vector<double>> log_ratios;  // per length, per pair
  // Per length: the centre of its log-ratios (their median, or for mean_t their mean) and that
  // centre's variance (from its pairs' spread).
  std::vector<double> centre_log, centre_variance;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    const PairedLength& pl = lengths[k];
    const std::string at = "L=" + std::to_string(pl.length);
    if (k > 0 && pl.length <= lengths[k - 1].length)
      throw InputError("paired lengths must increase: " + at + " follows L=" +
                       std::to_string(lengths[k - 1].length));
    if (pl.base_s.size() != pl.head_s.size())
      throw InputError(at + " has " + std::to_string(pl.base_s.size()) + " base slices but " +
                       std::to_string(pl.head_s.size()) + " head slices");
    if (pl.base_s.empty()) throw InputError(at + " has no pairs");
    std::vector<double> r;
    for (std::size_t i = 0; i < pl.base_s.size(); ++i) {
      for (double t : {pl.base_s[i], pl.head_s[i]})
        if (!std::isfinite(t) || t <= 0)
          throw InputError(at + " has a slice time of " + strprintf("%g", t) +
                           " s: times must be finite and > 0");
      r.push_back(std::log(pl.head_s[i] / pl.base_s[i]));
    }
    LengthRatio lr;
    lr.length = pl.length;
    lr.pairs = int(r.size());
    if (by_median) {
      std::vector<double> sorted = r;
      std::sort(sorted.begin(), sorted.end());
      const double m = median_of_sorted(sorted);
      lr.ratio = std::exp(m);
      centre_log.push_back(m);
      const int rank = median_ci_rank(lr.pairs);
      if (rank > 0) {
        const double low = sorted[std::size_t(rank - 1)], high = sorted[std::size_t(lr.pairs - rank)];
        lr.ci95 = Interval{std::exp(low), std::exp(high)};
        // The median's variance read off its interval: half its width over 1.96.
        centre_variance.push_back(std::pow((high - low) / (2 * 1.96), 2));
      } else {
        centre_variance.push_back(0.0);  // too few pairs to say: none is claimed (no CI)
      }
    } else {
      const double m = mean_of(r);
      lr.ratio = std::exp(m);
      centre_log.push_back(m);
      double ss = 0;
      for (double x : r) ss += (x - m) * (x - m);
      // A length of one pair has no noise estimate: none is claimed for it (no CI).
      centre_variance.push_back(lr.pairs > 1 ? ss / double(lr.pairs - 1) / double(lr.pairs) : 0.0);
      if (lr.pairs >= enough_pairs) {
        const double se = std::sqrt(centre_variance.back());
        const double t = student_t95(lr.pairs - 1);
        lr.ci95 = Interval{std::exp(m - t * se), std::exp(m + t * se)};
      }
    }
    lr.base_s = median_of(pl.base_s);
    lr.head_s = median_of(pl.head_s);
    out.lengths.push_back(lr);
    log_ratios.push_back(std::move(r));
  }

  Region region;
  std::vector<std::size_t> in_region;
  for (std::size_t k = 0; k < lengths.size(); ++k)
    if (double(lengths[k].length) >= fit_from) {
      in_region.push_back(k);
      region.log_length.push_back(std::log(double(lengths[k].length)));
      region.base_s.push_back(out.lengths[k].base_s);
    }
  out.region_lengths = int(in_region.size());
  if (in_region.size() < 2) {
    out.reason = "the region from L=" + fixed(fit_from, 0) + " holds " +
                 std::to_string(in_region.size()) +
                 " length(s): no exponent change or marginal cost can be compared";
    return out;
  }
  std::vector<double> centres, variances;
  for (std::size_t k : in_region) {
    centres.push_back(centre_log[k]);
    variances.push_back(centre_variance[k]);
  }
  double tau2 = between_lengths_variance(region.log_length, centres, variances);
  if (by_median)
    if (const auto affine = between_lengths_variance_affine(region.log_length, centres, variances, region.base_s))
      tau2 = std::min(tau2, *affine);
  double tau = std::sqrt(tau2);
  if (tau < 1e-6) tau = 0;  // rounding of equal centres, not an offset (1e-6 is 0.0001%)
  out.between_lengths_sd = tau;
  const RegionEstimate point = region.estimate(centres);
  out.delta_p = point.delta_p;
  if (std::isfinite(point.cost_ratio)) out.cost_ratio = point.cost_ratio;

  std::mt19937_64 rng(seed);
  std::vector<double> dp, cr;
  dp.reserve(kBootstrapResamples);
  cr.reserve(kBootstrapResamples);
  std::vector<double> resampled(in_region.size()), scratch;
  // A standard normal by Box-Muller from the generator's own bits: the standard library's
  // distributions differ between implementations, and a report read back must give its interval.
  const auto offset = [&rng] {
    const double u1 = (double(rng() >> 11) + 0.5) * 0x1.0p-53, u2 = double(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * 3.141592653589793 * u2);
  };
  for (int b = 0; b < kBootstrapResamples; ++b) {
    for (std::size_t j = 0; j < in_region.size(); ++j) {
      const std::vector<double>& r = log_ratios[in_region[j]];
      std::uniform_int_distribution<std::size_t> pick(0, r.size() - 1);
      scratch.resize(r.size());
      for (double& x : scratch) x = r[pick(rng)];
      resampled[j] = by_median ? median_of(scratch) : mean_of(scratch);
      if (tau > 0) resampled[j] += tau * offset();
    }
    const RegionEstimate e = region.estimate(resampled);
    dp.push_back(e.delta_p);
    cr.push_back(e.cost_ratio);
  }
  // A length of one pair resamples to itself: its noise is unknown, so no interval is claimed.
  const bool every_length_paired = std::all_of(in_region.begin(), in_region.end(), [&](auto k) {
    return out.lengths[k].pairs >= enough_pairs;
  });
  if (every_length_paired) {
    out.delta_p_ci95 = percentile_interval(dp);
    if (out.cost_ratio) out.cost_ratio_ci95 = percentile_interval(cr);
  }
  out.delta_p_verdict = verdict_against(out.delta_p_ci95, thresholds.tolerance);
  out.cost_verdict = verdict_against(out.cost_ratio_ci95, thresholds.max_cost_ratio);
  if (out.delta_p_verdict == AbVerdict::regression || out.cost_verdict == AbVerdict::regression)
    out.verdict = AbVerdict::regression;
  else if (out.delta_p_verdict == AbVerdict::pass && out.cost_verdict == AbVerdict::pass)
    out.verdict = AbVerdict::pass;

  const auto ci_text = [](const std::optional<Interval>& ci, int digits) {
    if (!ci) return std::string("(no CI)");
    std::string out(1, '[');  // appended piece by piece: GCC 12 warns falsely on "[" + string
    out += fixed(ci->low, digits);
    out += ", ";
    out += fixed(ci->high, digits);
    out += ']';
    return out;
  };
  const std::string dp_text = "delta p " + ci_text(out.delta_p_ci95, 3) + " against +" +
                              fixed(thresholds.tolerance, 3);
  const std::string cr_text = "cost ratio " + ci_text(out.cost_ratio_ci95, 3) + " against " +
                              fixed(thresholds.max_cost_ratio, 3);
  switch (out.verdict) {
    case AbVerdict::regression:
      out.reason = out.delta_p_verdict == AbVerdict::regression && out.cost_verdict == AbVerdict::regression
                       ? dp_text + " and " + cr_text + ": both wholly above"
                   : out.delta_p_verdict == AbVerdict::regression ? dp_text + ": wholly above"
                                                                  : cr_text + ": wholly above";
      break;
    case AbVerdict::pass:
      out.reason = dp_text + " and " + cr_text + ": both wholly within";
      break;
    case AbVerdict::inconclusive:
      out.reason = (out.delta_p_verdict == AbVerdict::inconclusive ? dp_text : cr_text) +
                   (tau > 0 ? ": straddles the bound (it carries offsets of about " +
                                  fixed(100 * tau, 1) +
                                  "% between the lengths' workloads, which more pairs do not narrow)"
                            : std::string(": straddles the bound (more pairs narrow it)"));
      if (!every_length_paired)
        out.reason = "a length of the region has fewer than " + std::to_string(enough_pairs) +
                     " pairs: no CI yet";
      break;
  }
  return out;
}

}  // namespace readbench
