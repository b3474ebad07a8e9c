#pragma once
// The fixed + marginal decomposition t(L) = t0 + b*L: a fixed cost per call and a marginal cost
// per token, fitted by least squares on relative error (times span decades, so each point
// weighs by its relative misfit, not its absolute one: minimise sum ((t0 + b*L - t) / t)^2).
#include <optional>
#include <string>
#include <vector>

#include "core/power_law_fit.hpp"

namespace readbench {

struct AffineFit {
  double fixed_s = 0;     // t0, seconds per call; may come out negative, and is then reported so
  double marginal_s = 0;  // b, seconds per token; <= 0 means the time does not grow with L
  // 95% CIs from Student's t with n - 2 degrees of freedom; null, with the reason, at n = 2.
  std::optional<double> fixed_ci95_low, fixed_ci95_high;
  std::optional<double> marginal_ci95_low, marginal_ci95_high;
  std::string ci95_reason;
  double rms_relative_error = 0;  // sqrt(mean ((t0 + b*L - t) / t)^2)
  int n_points = 0;

  // (t - t0) / t: how much of a time of `seconds` is not this fit's fixed cost. For a read
  // that is exactly affine it is b*L/t; where the per-token cost changes along the lengths (a
  // copy that outgrows a cache) it still counts all the length-dependent time, and it grows
  // with the time, so the shares of a series rise with its lengths.
  double share(double seconds) const { return 1 - fixed_s / seconds; }
};

// Throws the guards' FitErrors (power_law_fit.hpp) naming the offending value. Points with
// length < fit_from are dropped first.
AffineFit fit_affine(const std::vector<TimedPoint>& points, double fit_from = 0);

}  // namespace readbench
