#pragma once
// The statistics of a paired comparison (`readbench ab`): two reads, base and head, timed in
// alternating slices at the same moments, so the machine's drift falls on both sides of each
// pair. Everything here is computed from the pairs alone.
//
// Per length: the ratio head/base is the geometric mean of the pairs' ratios, with a 95% CI from
// Student's t on the mean of log(head/base) (n - 1 degrees of freedom): log-ratios are
// symmetric around 0 for equal reads and close to normal once slices take their best sample.
// Over the fitted region (lengths >= fit_from):
// - delta_p, the change of the exponent: the least-squares slope of the per-length mean
//   log-ratio against log L. A head whose time is the base's times (L/L0)^k has delta_p = k.
// - cost_ratio, head over base marginal cost per token: t0 + b*L fitted (marginal_cost_fit.hpp)
//   to the base's per-length times and to the same times scaled by the paired ratio,
//   b_head / b_base. The pairing carries the comparison; the base's own drift only shapes the
//   line.
// Both CIs come from a paired bootstrap (kBootstrapResamples resamples of the pairs within each
// length, a fixed seed, percentile interval): the two are non-linear in the pairs of several
// lengths, and resampling whole pairs keeps each pair's shared drift together.
// Each length is its own workload in each arm, and two workloads at their own addresses can
// read a few percent apart for good (where their buffers meet the caches, on a virtual machine
// how the host backs their pages): an offset every pair of that length shares, which no
// resampling of pairs sees. Where the region's mean log-ratios scatter about their line by more
// than their pairs' noise explains, that excess is estimated (between_lengths_sd, a method-of-
// moments estimate of the variance of an offset per length) and every bootstrap resample draws
// a normal offset of that spread for each length, so the CIs carry it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.hpp"

namespace readbench {

inline constexpr int kBootstrapResamples = 2000;
inline constexpr std::uint64_t kBootstrapSeed = 0x5eedab5eedab;
// Pairs a length needs before its ratio has a CI (the t interval needs two; three keeps the
// quantile finite enough to mean something).
inline constexpr int kMinPairs = 3;

enum class AbVerdict { pass, regression, inconclusive };
inline constexpr Named<AbVerdict> kAbVerdictNames[] = {{AbVerdict::pass, "pass"},
                                                       {AbVerdict::regression, "regression"},
                                                       {AbVerdict::inconclusive, "inconclusive"}};
constexpr std::string_view to_string(AbVerdict v) {
  return name_in(kAbVerdictNames, v);
}
AbVerdict parse_ab_verdict(std::string_view s);  // throws InputError listing the words

struct Interval {
  double low = 0, high = 0;
};

// The slices of one length, paired by index: base_s[i] and head_s[i] were taken back to back.
struct PairedLength {
  std::int64_t length = 0;
  std::vector<double> base_s, head_s;  // seconds per call, each slice's statistic
};

struct LengthRatio {
  std::int64_t length = 0;
  int pairs = 0;
  double ratio = 1;               // head / base, geometric mean over the pairs
  std::optional<Interval> ci95;   // empty below kMinPairs
  double base_s = 0, head_s = 0;  // medians of each side's slices
};

// What counts as a regression: the exponent rising by more than `tolerance`, or the marginal
// cost per token rising past `max_cost_ratio` times the base's.
struct PairedThresholds {
  double tolerance = 0.05;
  double max_cost_ratio = 1.02;
};

struct PairedComparison {
  std::vector<LengthRatio> lengths;  // in increasing length
  double fit_from = 0;               // the region: lengths >= this
  int region_lengths = 0;
  // The spread of an offset per length beyond the pairs' noise, in log-ratio (0.02: about 2%);
  // 0 with fewer than 3 region lengths or no excess scatter.
  double between_lengths_sd = 0;
  std::optional<double> delta_p, cost_ratio;  // empty with fewer than 2 region lengths
  std::optional<Interval> delta_p_ci95, cost_ratio_ci95;
  AbVerdict delta_p_verdict = AbVerdict::inconclusive;
  AbVerdict cost_verdict = AbVerdict::inconclusive;
  // regression when either is; pass when both are; else inconclusive.
  AbVerdict verdict = AbVerdict::inconclusive;
  std::string reason;  // one line: what decided the verdict
};

// Throws InputError on lengths out of order or repeated, sides of different sizes, or a time
// that is not finite and positive. `fit_from` picks the region (the base's fit, asymptote_fit.hpp).
PairedComparison compare_pairs(const std::vector<PairedLength>& lengths, double fit_from,
                               const PairedThresholds& thresholds,
                               std::uint64_t seed = kBootstrapSeed);

// The verdict of an estimate's CI against a bound above which it is a regression: regression when
// the whole CI is above, pass when the whole CI is at or below, inconclusive when it straddles
// or there is no CI.
AbVerdict verdict_against(const std::optional<Interval>& ci, double bound);

}  // namespace readbench
