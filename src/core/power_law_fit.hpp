#pragma once
// The guarded power-law fit: t = c * L^p by ordinary least squares of ln t on ln L; and what
// every fit shares: its points, their guards and the t quantile of its confidence intervals.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace readbench {

struct TimedPoint {
  double length = 0;   // L, tokens
  double seconds = 0;  // t
};

enum class Regime { flat, sublinear, linear, superlinear };
std::string_view to_string(Regime r);
// Bands: flat p < 0.2; sublinear 0.2 <= p < 0.8; linear 0.8 <= p < 1.25; superlinear above.
Regime regime_of(double exponent);

// Slope of ln t between two neighbouring distinct lengths.
struct Segment {
  double from_length = 0;
  double to_length = 0;
  double exponent = 0;
};

struct FitResult {
  double exponent = 0;  // p
  double constant = 0;  // c, seconds at L = 1
  double r2 = 0;
  std::optional<double> stderr_exponent;  // null when n = 2 (no residual degrees of freedom)
  std::optional<double> ci95_low, ci95_high;
  std::string ci95_reason;  // why the CI is null, empty otherwise
  double per_token_s = 0;   // t(L_max) / L_max (geometric mean if L_max repeats)
  double longest_length = 0;
  Regime regime = Regime::flat;
  int n_points = 0;
  double fit_from = 0;  // smallest length admitted (0: all)
  std::vector<Segment> segments;
};

// Throws TooFewPoints, TooFewDistinctLengths, BadLength or BadTime (all FitError) naming the
// offending value. Points with length < fit_from are dropped before the guards apply.
FitResult fit_power_law(const std::vector<TimedPoint>& points, double fit_from = 0);

// The guards every fit shares: each point's length and time finite and > 0 (BadLength,
// BadTime), then at least 2 points and 2 distinct lengths with length >= fit_from
// (TooFewPoints, TooFewDistinctLengths). Returns those points.
std::vector<TimedPoint> guarded_points(const std::vector<TimedPoint>& points, double fit_from);
// The one rule for a --fit-from length: finite and >= 0 (InputError naming it otherwise).
void check_fit_from(double fit_from);

// Two-sided 95% Student's t quantile for `dof` degrees of freedom (dof >= 1).
double student_t95(int dof);

// "12.5", "1e-09": a number as error messages print it.
std::string format_number(double v);

}  // namespace readbench
