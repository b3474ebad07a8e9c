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
#include <optional>
#include <string>
#include <vector>

#include "core/affine_fit.hpp"
#include "core/fit.hpp"

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

struct ReadFitOptions {
  std::optional<double> fit_from;            // empty: auto
  std::optional<double> kv_bytes_per_token;  // K and V bytes a call reads per token
  std::optional<double> read_ceiling_gbps;   // the backend's measured read ceiling
  // Whether the cost per token must have settled over the region (the rule of reports from
  // schema version 6 on; older reports were judged by the share alone).
  bool settle = true;
};

struct ReadFit {
  FitResult power;             // t = c * L^p over the region
  AffineFit affine;            // t = t0 + b*L over the region: the reported fixed and marginal cost
  AffineFit share_basis;       // t = t0 + b*L over every point: the shares
  std::vector<double> shares;  // (t - t0)/t of each point, in the order given
  double fit_from = 0;         // the region: lengths >= this
  bool fit_from_auto = false;
  int region_lengths = 0;  // distinct lengths in the region
  std::optional<double> kv_bytes_per_token;
  std::optional<double> effective_gbps;    // K/V bytes per token over b, 1e9 B/s
  std::optional<double> ceiling_fraction;  // effective_gbps over the read ceiling
  std::string bandwidth_reason;            // why effective_gbps is empty
  // The highest cost per token (mean time over the length) at a fitted length over the one at
  // fit_from, and where it is: 1 (at fit_from) for a read whose cost per token only falls.
  double cost_rise = 1;
  double cost_rise_length = 0;
  bool settle = true;  // whether the judgement needed the cost per token settled
  bool asymptote_reached = false;
  std::string asymptote_reason;  // one line: why it is, or is not, reached
};

// Throws the guards' FitErrors (fit.hpp) naming the offending value, for the whole series and
// for the region.
ReadFit fit_read(const std::vector<TimedPoint>& points, const ReadFitOptions& options = {});

}  // namespace readbench
