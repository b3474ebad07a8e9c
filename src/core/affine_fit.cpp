#include "core/affine_fit.hpp"

#include <cmath>

namespace readbench {

AffineFit fit_affine(const std::vector<TimedPoint>& all, double fit_from) {
  const std::vector<TimedPoint> pts = guarded_points(all, fit_from);
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
  AffineFit f;
  f.n_points = int(pts.size());
  f.marginal_s = sxy / sxx;
  f.fixed_s = mean_t - f.marginal_s * mean_l;
  double ss = 0;  // sum of squared relative residuals: the weighted residual sum
  for (const TimedPoint& p : pts) {
    const double r = (f.fixed_s + f.marginal_s * p.length - p.seconds) / p.seconds;
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
    f.marginal_ci95_low = f.marginal_s - t * se_b;
    f.marginal_ci95_high = f.marginal_s + t * se_b;
    f.fixed_ci95_low = f.fixed_s - t * se_t0;
    f.fixed_ci95_high = f.fixed_s + t * se_t0;
  } else {
    f.ci95_reason = "2 points leave no degrees of freedom for a confidence interval";
  }
  return f;
}

}  // namespace readbench
