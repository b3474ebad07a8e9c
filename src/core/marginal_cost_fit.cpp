#include "core/marginal_cost_fit.hpp"

#include <algorithm>
#include <cmath>

namespace readbench {

AffineFit fit_affine(const std::vector<TimedPoint>& all, double fit_from) {
  std::vector<TimedPoint> pts = guarded_points(all, fit_from);
  // Fitted in units of the longest time and the longest length, so the weights 1/t^2 and the
  // sums below neither overflow nor underflow at any scale a double holds; the relative
  // residuals do not depend on the units.
  double time_unit = 0, length_unit = 0;
  for (const TimedPoint& p : pts)
    time_unit = std::max(time_unit, p.seconds), length_unit = std::max(length_unit, p.length);
  for (TimedPoint& p : pts) p.seconds /= time_unit, p.length /= length_unit;
  // Weighted least squares with weights 1/t^2, centred on the weighted mean length so the
  // normal equations stay well conditioned when lengths span six decades.
  double sw = 0, swl = 0, swt = 0;
  for (const TimedPoint& p : pts) {
    const double w = 1 / (p.seconds * p.seconds);
    sw += w;
    swl += w * p.length;
    swt += w * p.seconds;
  }
  const double mean_l = swl / sw, mean_t = swt / sw;
  double sxx = 0, sxy = 0;
  for (const TimedPoint& p : pts) {
    const double w = 1 / (p.seconds * p.seconds);
    sxx += w * (p.length - mean_l) * (p.length - mean_l);
    sxy += w * (p.length - mean_l) * (p.seconds - mean_t);
  }
  const double b = sxy / sxx, t0 = mean_t - b * mean_l;  // in those units
  // Back to seconds and seconds per token.
  const auto per_token = [&](double x) { return x * time_unit / length_unit; };
  const auto seconds = [&](double x) { return x * time_unit; };
  AffineFit f;
  f.n_points = int(pts.size());
  f.marginal_s = per_token(b);
  f.fixed_s = seconds(t0);
  double ss = 0;  // sum of squared relative residuals: the weighted residual sum
  for (const TimedPoint& p : pts) {
    const double r = (t0 + b * p.length - p.seconds) / p.seconds;
    ss += r * r;
  }
  f.rms_relative_error = std::sqrt(ss / f.n_points);
  const int dof = f.n_points - 2;
  if (dof > 0) {
    // Weights known up to a common scale: sigma^2 = ss / dof, cov = sigma^2 (X'WX)^-1.
    const double sigma2 = ss / dof;
    const double t = student_t95(dof);
    const double se_b = std::sqrt(sigma2 / sxx);
    const double se_t0 = std::sqrt(sigma2 * (1 / sw + mean_l * mean_l / sxx));
    f.marginal_ci95_low = per_token(b - t * se_b);
    f.marginal_ci95_high = per_token(b + t * se_b);
    f.fixed_ci95_low = seconds(t0 - t * se_t0);
    f.fixed_ci95_high = seconds(t0 + t * se_t0);
  } else {
    f.ci95_reason = "2 points leave no degrees of freedom for a confidence interval";
  }
  return f;
}

}  // namespace readbench
