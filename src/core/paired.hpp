#pragma once
// The statistics of a paired comparison (`readbench ab`): two reads, base and head, timed in
// alternating slices at the same moments, so the machine's drift falls on both sides of each
// pair. Everything here is computed from the pairs alone.
//
// Per length: the ratio head/base is exp of the median of the pairs' log(head/base), with a 95%
// CI between two of the pairs' order statistics (the binomial interval for a median, exact for
// any distribution). A pair's two slices are taken in a random order (ABBA or BAAB), so whatever
// disturbs one slice falls on base or head alike: log-ratios spread symmetrically about the
// true one, but with heavy tails (one slice of a pair caught by a neighbour's burst). The
// median ignores those tails where a mean follows them: judged again on the stored A/As of a
// 2-vCPU VM (docs/gate.md), the cost ratio's CI narrowed from about +-1.9% to +-1.2%.
// Over the fitted region (lengths >= fit_from):
// - delta_p, the change of the exponent: the least-squares slope of the per-length median
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
// resampling of pairs sees. Where the region's per-length log-ratios scatter about a model of
// them by more than their pairs' noise explains, that excess is estimated (between_lengths_sd,
// a method-of-moments estimate of the variance of an offset per length) and every bootstrap
// resample draws a normal offset of that spread for each length, so the CIs carry it. Two
// models are tried and the one that leaves less is kept, since a model that misses the curve
// reads its own misfit as offsets: a line in log L (a ratio growing as a power of L) and the
// ratio of two lines t0 + b*L (a head whose extra work is partly fixed, partly per token: its
// ratio falls along L, which no line in log L follows).
//
// Reports made before the median (PairedMethod::mean_t) used the mean of the log-ratios, a
// Student t interval per length and the line alone; they are read, and checked, by their own
// method.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.hpp"

namespace readbench {

// How a report's pairs are summarised; a report names its method, and is read by it.
enum class PairedMethod { median, mean_t };
inline constexpr Named<PairedMethod> kPairedMethodNames[] = {
    {PairedMethod::median, "binomial order-statistic interval on the median log(head/base) of the pairs"},
    {PairedMethod::mean_t, "Student t interval on the mean log(head/base) of the pairs"}};
constexpr std::string_view to_string(PairedMethod m) {
  return name_in(kPairedMethodNames, m);
}
// What the offsets between lengths are estimated against (see above).
constexpr std::string_view offsets_model(PairedMethod m) {
  return m == PairedMethod::median ? "the closer of a line in log L and a ratio of two lines t0 + b*L"
                                   : "a line in log L";
}

inline constexpr int kBootstrapResamples = 2000;
inline constexpr std::uint64_t kBootstrapSeed = 0x5eedab5eedab;
// Pairs a length needs before its ratio has a CI: a median's binomial interval reaches 95% from
// six (1 - 2 * 0.5^6 = 0.969; five give 0.94); the t interval needs two, and three keep its
// quantile finite enough to mean something.
constexpr int min_pairs(PairedMethod m) {
  return m == PairedMethod::median ? 6 : 3;
}

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
  double ratio = 1;               // head / base: exp of the pairs' median (or mean) log-ratio
  std::optional<Interval> ci95;   // empty below min_pairs
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
                               PairedMethod method = PairedMethod::median,
                               std::uint64_t seed = kBootstrapSeed);

// The verdict of an estimate's CI against a bound above which it is a regression: regression when
// the whole CI is above, pass when the whole CI is at or below, inconclusive when it straddles
// or there is no CI.
AbVerdict verdict_against(const std::optional<Interval>& ci, double bound);

}  // namespace readbench
