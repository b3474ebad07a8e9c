#include "core/power_law_fit.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <sstream>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace readbench {

namespace {

void check_point(const TimedPoint& p, std::size_t index) {
  if (!std::isfinite(p.length) || p.length <= 0)
    throw BadLength("point " + std::to_string(index + 1) +
                    ": length must be a finite number > 0, got " + format_number(p.length));
  if (!std::isfinite(p.seconds) || p.seconds <= 0)
    throw BadTime("point " + std::to_string(index + 1) +
                  ": time must be a finite number > 0, got " + format_number(p.seconds));
}

}  // namespace

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

void check_fit_from(double fit_from) {
  if (!std::isfinite(fit_from) || fit_from < 0)
    throw InputError("--fit-from must be auto or a finite length >= 0, got " +
                     format_number(fit_from));
}

double student_t95(int dof) {
  const boost::math::students_t dist(dof);
  return boost::math::quantile(boost::math::complement(dist, 0.025));
}

std::vector<TimedPoint> guarded_points(const std::vector<TimedPoint>& all, double fit_from) {
  check_fit_from(fit_from);
  for (std::size_t i = 0; i < all.size(); ++i) check_point(all[i], i);
  std::vector<TimedPoint> pts;
  for (const auto& p : all)
    if (p.length >= fit_from) pts.push_back(p);
  if (pts.size() < 2)
    throw TooFewPoints(
        "the fit needs at least 2 points" +
        (fit_from > 0 ? " with length >= " + format_number(fit_from) : std::string()) + ", got " +
        std::to_string(pts.size()));
  // Distinct as logarithms, which the power law fits: lengths a rounding apart are one length.
  const double first = std::log(pts.front().length);
  const bool one_length = std::all_of(
      pts.begin(), pts.end(), [&](const TimedPoint& p) { return std::log(p.length) == first; });
  if (one_length)
    throw TooFewDistinctLengths("the fit needs at least 2 distinct lengths, all " +
                                std::to_string(pts.size()) + " points have length " +
                                format_number(pts.front().length));
  return pts;
}

std::string_view to_string(Regime r) {
  static constexpr Named<Regime> kNames[] = {{Regime::flat, "flat"},
                                             {Regime::sublinear, "sublinear"},
                                             {Regime::linear, "linear"},
                                             {Regime::superlinear, "superlinear"}};
  return name_in(kNames, r);
}

Regime regime_of(double p) {
  if (p < 0.2) return Regime::flat;
  if (p < 0.8) return Regime::sublinear;
  if (p < 1.25) return Regime::linear;
  return Regime::superlinear;
}

FitResult fit_power_law(const std::vector<TimedPoint>& all, double fit_from) {
  const std::vector<TimedPoint> pts = guarded_points(all, fit_from);

  // ln L -> mean ln t per distinct length (repeated lengths are averaged for segments).
  std::map<double, std::pair<double, int>> by_length;
  for (const auto& p : pts) {
    auto& [sum, count] = by_length[p.length];
    sum += std::log(p.seconds);
    ++count;
  }

  const double n = double(pts.size());
  double mx = 0, my = 0;
  for (const auto& p : pts) {
    mx += std::log(p.length);
    my += std::log(p.seconds);
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (const auto& p : pts) {
    const double dx = std::log(p.length) - mx, dy = std::log(p.seconds) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }

  FitResult f;
  f.n_points = int(pts.size());
  f.fit_from = fit_from;
  f.exponent = sxy / sxx;
  f.constant = std::exp(my - f.exponent * mx);
  double ss_res = 0;
  for (const auto& p : pts) {
    const double r = std::log(p.seconds) - (my + f.exponent * (std::log(p.length) - mx));
    ss_res += r * r;
  }
  // A series the line explains exactly (including a constant one, syy = 0) has r2 = 1.
  f.r2 = syy > 0 ? std::max(0.0, 1.0 - ss_res / syy) : 1.0;

  const int dof = f.n_points - 2;
  if (dof > 0) {
    const double se = std::sqrt(ss_res / dof / sxx);
    const double half = student_t95(dof) * se;
    f.stderr_exponent = se;
    f.ci95_low = f.exponent - half;
    f.ci95_high = f.exponent + half;
  } else {
    f.ci95_reason = "2 points leave no degrees of freedom for a confidence interval";
  }

  const auto& [l_max, longest] = *by_length.rbegin();
  f.longest_length = l_max;
  f.per_token_s = std::exp(longest.first / longest.second) / l_max;
  f.regime = regime_of(f.exponent);

  for (auto it = by_length.begin(), next = std::next(it); next != by_length.end(); ++it, ++next) {
    const double y0 = it->second.first / it->second.second;
    const double y1 = next->second.first / next->second.second;
    f.segments.push_back(
        {it->first, next->first, (y1 - y0) / (std::log(next->first) - std::log(it->first))});
  }
  return f;
}

}  // namespace readbench
