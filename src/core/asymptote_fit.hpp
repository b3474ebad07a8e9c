#pragma once
// What readbench fits to one backend/path's timings: the power law t = c*L^p and the fixed +
// marginal decomposition t = t0 + b*L over one region of lengths, the share of each point's
// time that is length-dependent, and whether the series reached its asymptote.
//
// The slope describes the read only where the length-dependent part of the time dominates.
// Each point's share is (t - t0)/t, b*L/t for an exactly affine read. With `fit_from` auto the
// region starts at the first length from which every share is at least kAsymptoteShare: t0
// first from t0 + b*L over every point, then from the fit over the region those shares select,
// the region moving up while its own t0 says so (a read whose cost per token is higher at
// short lengths has a larger fixed cost where it has settled than the line through every point
// shows). With a given `fit_from` the shares use t0 of the fit from there (of every point at 0).
// The share cannot see a read whose cost per token (t/L) rises along the lengths, such as a
// gathered copy that outgrows the last-level cache: its line through the points has a fixed
// cost near zero or below, so every share passes, and the exponent then describes the change,
// not the read. So the region also starts where the cost per token has settled, where that
// leaves kAsymptoteLengths lengths (else where it rises least): no longer length costs more per
// token than the region's first by more than kSettleRise (an affine
// read's cost per token only falls along its lengths). The asymptote is reached when the share
// at the region's shortest length is at least kAsymptoteShare, the cost per token settled over
// it, and the region holds kAsymptoteLengths distinct lengths.
//
// From schema version 7 on an auto region is a region: at least kRegionLengths distinct
// lengths spanning at least kRegionSpan (the longest over the shortest). A slope over two
// lengths 1% apart is noise, whatever their shares. Where the lengths the shares select are
// fewer or closer, the fit is widened down to the shortest tail that meets the rule (the whole
// grid where none does), judged not reached, and the region tried stays named in the reason.
// The asymptote also needs the growth resolved: the 95% CIs of the marginal cost and of the
// exponent above zero (a noisy series whose line undercuts zero has shares above 1 at every
// length, and would pass the share rule with p's CI holding zero). Shares are clamped into
// [0, 1]; a clamped one is where the line t0 + b*L does not describe the point.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/marginal_cost_fit.hpp"
#include "core/power_law_fit.hpp"

namespace readbench {

// At a share of 0.8 the fixed cost is at most a quarter of the length-dependent time; with x4
// steps an affine read then fits p of about 0.95 over four lengths.
constexpr double kAsymptoteShare = 0.8;
// Fewer lengths leave a confidence interval too wide for a gate to read.
constexpr int kAsymptoteLengths = 4;
// How far the cost per token may rise over a settled region, above its value at the region's
// first length. An affine read's cost per token falls along its lengths; a read whose cost
// rises 25% over the x64 of four x4 lengths grows as L^1.05 there. The margin is the noise: on
// a 2-vCPU VM whose memory bandwidth moves within a run, the fused read's cost per token moved
// by up to 22% between lengths of one run.
constexpr double kSettleRise = 0.25;
// A region's size (schema version 7 on): four lengths at x4 steps span 64x; four spanning 4x is
// the least over which an exponent's CI can be narrow enough to gate on (its standard error
// grows as the spread of ln L shrinks).
constexpr int kRegionLengths = kAsymptoteLengths;
constexpr double kRegionSpan = 4;

// Which rules judged a fit: those of the report's schema version (a report is read back under
// its own rules, so its stored region and verdict are checked as they were written).
enum class FitRules {
  share_only,  // schema version 5 and before
  settled,     // 6: the cost per token settled too
  region,      // 7 on: and an auto region of kRegionLengths lengths spanning kRegionSpan
};

// Why a fit is not at its asymptote (none when it is): each cause has its own advice.
enum class Shortfall { none, not_growing, small_region, fixed_cost, unsettled, unresolved };
// The word a report writes for it ("none", "not-growing", "small-region", ...).
std::string_view to_string(Shortfall s);

// Whether distinct lengths (in increasing order) make a region: kRegionLengths of them
// spanning kRegionSpan. The one rule every fit and gate applies.
bool is_region(const std::vector<double>& distinct_lengths);

struct ReadFitOptions {
  std::optional<double> fit_from;            // empty: auto
  std::optional<double> kv_bytes_per_token;  // K and V bytes a call reads per token
  std::optional<double> read_ceiling_gbps;   // the backend's measured read ceiling
  FitRules rules = FitRules::region;
};

// What the fitted region is, against the region the shares and the settling selected.
enum class FitBasis {
  given,      // --fit-from N
  region,     // the region the rule selected
  widened,    // that region was too small: the shortest tail that is a region
  whole_grid  // that region was too small and no tail is a region: every length
};
std::string_view to_string(FitBasis b);

struct ReadFit {
  FitResult power;        // t = c * L^p over the region
  AffineFit affine;       // t = t0 + b*L over the region: the reported fixed and marginal cost
  AffineFit share_basis;  // t = t0 + b*L over every point: the shares
  // (t - t0)/t of each point, in the order given, clamped into [0, 1] (from version 7 on).
  std::vector<double> shares;
  std::vector<double> raw_shares;  // the same unclamped: above 1 where t0 < 0
  double fit_from = 0;             // the region: lengths >= this
  bool fit_from_auto = false;
  FitBasis basis = FitBasis::region;
  // Where the rule's own region started before it was widened (== fit_from unless widened).
  double tried_from = 0;
  int tried_lengths = 0;   // distinct lengths from tried_from on
  double tried_span = 1;   // their longest over their shortest
  int region_lengths = 0;  // distinct lengths in the region
  double region_span = 1;  // the region's longest length over its shortest
  std::optional<double> kv_bytes_per_token;
  std::optional<double> effective_gbps;    // K/V bytes per token over b, 1e9 B/s
  std::optional<double> ceiling_fraction;  // effective_gbps over the read ceiling
  std::string bandwidth_reason;            // why effective_gbps is empty
  // The highest cost per token (mean time over the length) at a fitted length over the one at
  // fit_from, and where it is: 1 (at fit_from) for a read whose cost per token only falls.
  double cost_rise = 1;
  double cost_rise_length = 0;
  FitRules rules = FitRules::region;
  bool settle() const { return rules != FitRules::share_only; }
  bool asymptote_reached = false;
  Shortfall shortfall = Shortfall::not_growing;
  std::string asymptote_reason;  // one line: why it is, or is not, reached
  // Whether shares[i] was clamped: the line t0 + b*L does not describe that point.
  bool share_clamped(std::size_t i) const { return shares[i] != raw_shares[i]; }
};

// Whether a fixed cost is resolved: its 95% CI wholly above zero. One whose CI holds zero is
// "about 0" (the line cannot tell it from none), never a cost to rank or export.
bool fixed_cost_resolved(const AffineFit& a);

// The logarithm of the cost per token (the mean time over the length) at each distinct length
// of the points: what the settling rule reads. Their times must be > 0 (the fits' guards,
// power_law_fit.hpp, refuse any other).
std::map<double, double> log_cost_per_token(const std::vector<TimedPoint>& points);

// Whether the fit misses its asymptote only because its cost per token has not settled: its
// region is one, the fixed cost weighs under a fifth from the region's first length and the
// growth is resolved, but the cost per token rises by more than kSettleRise over it.
bool only_unsettled(const ReadFit& f);

// Throws the guards' FitErrors (power_law_fit.hpp) naming the offending value, for the whole
// series and for the region.
ReadFit fit_read(const std::vector<TimedPoint>& points, const ReadFitOptions& options = {});

}  // namespace readbench
