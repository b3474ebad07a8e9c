// The guarded power-law fit on closed-form series whose answers are known.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/power_law_fit.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

// t = c * L^p at L = 16, 64, ..., 4096 (geometric, x4).
std::vector<TimedPoint> power_series(double c, double p) {
  std::vector<TimedPoint> pts;
  for (double L = 16; L <= 4096; L *= 4) pts.push_back({L, c * std::pow(L, p)});
  return pts;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("a linear series fits exponent one to within 1e-12") {
  const FitResult f = fit_power_law(power_series(3e-9, 1.0));
  CHECK(std::abs(f.exponent - 1.0) <= 1e-12);
  CHECK(f.constant == doctest::Approx(3e-9).epsilon(1e-9));
  CHECK(f.r2 == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f.regime == Regime::linear);
  CHECK(f.n_points == 5);
}

TEST_CASE("a constant series fits exponent zero and reads flat") {
  const FitResult f = fit_power_law(power_series(2e-6, 0.0));
  CHECK(std::abs(f.exponent) <= 1e-12);
  CHECK(f.constant == doctest::Approx(2e-6).epsilon(1e-9));
  CHECK(f.regime == Regime::flat);
  CHECK(to_string(f.regime) == "flat");
}

TEST_CASE("a quadratic series fits exponent two and reads superlinear") {
  const FitResult f = fit_power_law(power_series(1e-12, 2.0));
  CHECK(std::abs(f.exponent - 2.0) <= 1e-12);
  CHECK(f.regime == Regime::superlinear);
  CHECK(to_string(f.regime) == "superlinear");
}

TEST_CASE("a square-root series fits exponent one half and reads sublinear") {
  const FitResult f = fit_power_law(power_series(1e-7, 0.5));
  CHECK(std::abs(f.exponent - 0.5) <= 1e-12);
  CHECK(f.regime == Regime::sublinear);
  CHECK(to_string(f.regime) == "sublinear");
}

TEST_CASE("an exact series has a zero-width confidence interval") {
  const FitResult f = fit_power_law(power_series(3e-9, 1.0));
  REQUIRE(f.ci95_low.has_value());
  REQUIRE(f.ci95_high.has_value());
  REQUIRE(f.stderr_exponent.has_value());
  CHECK(*f.stderr_exponent <= 1e-12);
  CHECK(*f.ci95_low == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(*f.ci95_high == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f.ci95_reason.empty());
}

TEST_CASE("no points raise TooFewPoints naming the count") {
  CHECK_THROWS_AS(fit_power_law({}), TooFewPoints);
  CHECK(error_message<FitError>([] { fit_power_law({}); }).find("got 0") != std::string::npos);
}

TEST_CASE("one point raises TooFewPoints naming the count") {
  CHECK_THROWS_AS(fit_power_law({{16, 1e-6}}), TooFewPoints);
  CHECK(error_message<FitError>([] {
          fit_power_law({{16, 1e-6}});
        }).find("got 1") != std::string::npos);
}

TEST_CASE("fit_from leaving one point raises TooFewPoints naming the threshold") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {64, 2e-6}, {256, 4e-6}};
  CHECK_NOTHROW(fit_power_law(pts, 64));
  CHECK_THROWS_AS(fit_power_law(pts, 100), TooFewPoints);
  const std::string msg = error_message<FitError>([&] { fit_power_law(pts, 100); });
  CHECK(msg.find(">= 100") != std::string::npos);
  CHECK(msg.find("got 1") != std::string::npos);
}

TEST_CASE("points at one length only raise TooFewDistinctLengths naming the length") {
  const std::vector<TimedPoint> pts{{64, 1e-6}, {64, 2e-6}, {64, 3e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), TooFewDistinctLengths);
  const std::string msg = error_message<FitError>([&] { fit_power_law(pts); });
  CHECK(msg.find("64") != std::string::npos);
  CHECK(msg.find("3 points") != std::string::npos);
}

TEST_CASE("lengths a rounding apart are one length to the power law, which fits logarithms") {
  const double a = 1e6, b = std::nextafter(1e6, 2e6);
  REQUIRE(a != b);
  REQUIRE(std::log(a) == std::log(b));
  const std::vector<TimedPoint> pts{{a, 1e-3}, {b, 2e-3}, {b, 3e-3}};
  CHECK_THROWS_AS(fit_power_law(pts), TooFewDistinctLengths);
}

TEST_CASE("a zero length raises BadLength naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {0, 2e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), BadLength);
  const std::string msg = error_message<FitError>([&] { fit_power_law(pts); });
  CHECK(msg.find("got 0") != std::string::npos);
  CHECK(msg.find("point 2") != std::string::npos);
}

TEST_CASE("a negative length raises BadLength naming the value") {
  const std::vector<TimedPoint> pts{{-16, 1e-6}, {32, 2e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), BadLength);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("got -16") != std::string::npos);
}

TEST_CASE("a NaN length raises BadLength naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {kNaN, 2e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), BadLength);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("nan") != std::string::npos);
}

TEST_CASE("an infinite length raises BadLength naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {kInf, 2e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), BadLength);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("inf") != std::string::npos);
}

TEST_CASE("a zero time raises BadTime naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {32, 0}};
  CHECK_THROWS_AS(fit_power_law(pts), BadTime);
  const std::string msg = error_message<FitError>([&] { fit_power_law(pts); });
  CHECK(msg.find("got 0") != std::string::npos);
  CHECK(msg.find("point 2") != std::string::npos);
}

TEST_CASE("a negative time raises BadTime naming the value") {
  const std::vector<TimedPoint> pts{{16, -0.25}, {32, 1e-6}};
  CHECK_THROWS_AS(fit_power_law(pts), BadTime);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("got -0.25") !=
        std::string::npos);
}

TEST_CASE("a NaN time raises BadTime naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {32, kNaN}};
  CHECK_THROWS_AS(fit_power_law(pts), BadTime);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("nan") != std::string::npos);
}

TEST_CASE("an infinite time raises BadTime naming the value") {
  const std::vector<TimedPoint> pts{{16, 1e-6}, {32, kInf}};
  CHECK_THROWS_AS(fit_power_law(pts), BadTime);
  CHECK(error_message<FitError>([&] { fit_power_law(pts); }).find("inf") != std::string::npos);
}

TEST_CASE("a negative or non-finite fit_from is an input error") {
  const auto pts = power_series(1e-9, 1.0);
  CHECK_THROWS_AS(fit_power_law(pts, -1), InputError);
  CHECK_THROWS_AS(fit_power_law(pts, kNaN), InputError);
}

TEST_CASE("every fit guard is an InputError, which the CLI maps to exit code 2") {
  CHECK_THROWS_AS(fit_power_law({{16, 1e-6}}), InputError);
  CHECK_THROWS_AS(fit_power_law({{16, 1e-6}, {16, 1e-6}}), InputError);
  CHECK_THROWS_AS(fit_power_law({{0, 1e-6}, {16, 1e-6}}), InputError);
  CHECK_THROWS_AS(fit_power_law({{8, 0}, {16, 1e-6}}), InputError);
}

// --- regime bands ----------------------------------------------------------------------

TEST_CASE("exponent 0.2 is sublinear and just below it is flat") {
  CHECK(regime_of(0.2) == Regime::sublinear);
  CHECK(regime_of(std::nextafter(0.2, 0.0)) == Regime::flat);
  CHECK(regime_of(0.0) == Regime::flat);
  CHECK(regime_of(-0.3) == Regime::flat);
}

TEST_CASE("exponent 0.8 is linear and just below it is sublinear") {
  CHECK(regime_of(0.8) == Regime::linear);
  CHECK(regime_of(std::nextafter(0.8, 0.0)) == Regime::sublinear);
}

TEST_CASE("exponent 1.25 is superlinear and just below it is linear") {
  CHECK(regime_of(1.25) == Regime::superlinear);
  CHECK(regime_of(std::nextafter(1.25, 0.0)) == Regime::linear);
  CHECK(regime_of(1.0) == Regime::linear);
}

// --- confidence interval ------------------------------------------------------------------

// Five points with ln L = x = 0, 1, 2, 3, 4 and ln t = y = 1.0, 2.1, 2.9, 4.0, 5.3
// (that is y = 1 + x + e, e = 0, .1, -.1, 0, .3). By hand:
//   mean x = 2, dx = -2, -1, 0, 1, 2, Sxx = 10
//   mean y = 15.3 / 5 = 3.06, dy = -2.06, -0.96, -0.16, 0.94, 2.24
//   Sxy = 4.12 + 0.96 + 0 + 0.94 + 4.48 = 10.5, so p = Sxy / Sxx = 1.05
//   intercept = 3.06 - 1.05 * 2 = 0.96, c = e^0.96
//   fitted y = 0.96, 2.01, 3.06, 4.11, 5.16; residuals 0.04, 0.09, -0.16, -0.11, 0.14
//   SSres = 0.0016 + 0.0081 + 0.0256 + 0.0121 + 0.0196 = 0.067
//   Syy = 4.2436 + 0.9216 + 0.0256 + 0.8836 + 5.0176 = 11.092, r2 = 1 - 0.067 / 11.092
//   s.e.(p) = sqrt(SSres / (n - 2) / Sxx) = sqrt(0.067 / 30) = 0.04725815626252612
//   t(0.975, 3) = 3.182446305284263 (table), half-width = 0.1503965447922226
//   CI = [0.8996034552077774, 1.2003965447922227]
TEST_CASE("the 95% CI matches a hand computation with Student's t at 3 degrees of freedom") {
  const double x[] = {0, 1, 2, 3, 4}, y[] = {1.0, 2.1, 2.9, 4.0, 5.3};
  std::vector<TimedPoint> pts;
  for (int i = 0; i < 5; ++i) pts.push_back({std::exp(x[i]), std::exp(y[i])});
  const FitResult f = fit_power_law(pts);
  CHECK(f.exponent == doctest::Approx(1.05).epsilon(1e-9));
  CHECK(f.constant == doctest::Approx(std::exp(0.96)).epsilon(1e-9));
  CHECK(f.r2 == doctest::Approx(1.0 - 0.067 / 11.092).epsilon(1e-9));
  REQUIRE(f.stderr_exponent.has_value());
  CHECK(*f.stderr_exponent == doctest::Approx(std::sqrt(0.067 / 30.0)).epsilon(1e-9));
  REQUIRE(f.ci95_low.has_value());
  REQUIRE(f.ci95_high.has_value());
  const double half = 3.182446305284263 * std::sqrt(0.067 / 30.0);
  CHECK(*f.ci95_low == doctest::Approx(1.05 - half).epsilon(1e-9));
  CHECK(*f.ci95_high == doctest::Approx(1.05 + half).epsilon(1e-9));
  CHECK(f.ci95_reason.empty());
}

TEST_CASE("two points give no confidence interval and say why") {
  const FitResult f = fit_power_law({{16, 1e-6}, {64, 4e-6}});
  CHECK(f.exponent == doctest::Approx(1.0).epsilon(1e-12));
  CHECK_FALSE(f.stderr_exponent.has_value());
  CHECK_FALSE(f.ci95_low.has_value());
  CHECK_FALSE(f.ci95_high.has_value());
  CHECK_FALSE(f.ci95_reason.empty());
  CHECK(f.ci95_reason.find("2 points") != std::string::npos);
}

// --- per-token cost, segments, fit_from -------------------------------------------------------

TEST_CASE("per-token cost is the time at the longest length over that length") {
  // Unordered on purpose: the longest point is not the last one given.
  const FitResult f = fit_power_law({{100, 5e-6}, {1000, 2e-5}, {10, 1e-6}});
  CHECK(f.longest_length == 1000);
  CHECK(f.per_token_s == doctest::Approx(2e-5 / 1000).epsilon(1e-12));
}

TEST_CASE("per-token cost at a repeated longest length uses the geometric mean of its times") {
  // sqrt(2e-5 * 8e-5) = 4e-5 s at L = 1000.
  const FitResult f = fit_power_law({{10, 1e-6}, {1000, 2e-5}, {1000, 8e-5}});
  CHECK(f.longest_length == 1000);
  CHECK(f.per_token_s == doctest::Approx(4e-8).epsilon(1e-12));
  CHECK(f.n_points == 3);
}

TEST_CASE("segments give the slope between each pair of neighbouring lengths") {
  // t doubles, then quadruples, then grows eightfold per doubling of L: slopes 1, 2, 3.
  const FitResult f = fit_power_law({{1, 1}, {2, 2}, {4, 8}, {8, 64}});
  REQUIRE(f.segments.size() == 3);
  CHECK(f.segments[0].from_length == 1);
  CHECK(f.segments[0].to_length == 2);
  CHECK(f.segments[0].exponent == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f.segments[1].from_length == 2);
  CHECK(f.segments[1].to_length == 4);
  CHECK(f.segments[1].exponent == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(f.segments[2].from_length == 4);
  CHECK(f.segments[2].to_length == 8);
  CHECK(f.segments[2].exponent == doctest::Approx(3.0).epsilon(1e-12));
}

TEST_CASE("segments average repeated lengths so each distinct length appears once") {
  // L = 2 has times 1 and 4: geometric mean 2, so both segments have slope 1.
  const FitResult f = fit_power_law({{1, 1}, {2, 1}, {2, 4}, {4, 4}});
  REQUIRE(f.segments.size() == 2);
  CHECK(f.segments[0].exponent == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f.segments[1].exponent == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f.n_points == 4);
}

TEST_CASE("fit_from drops shorter lengths before fitting") {
  // A flat overhead below L = 16, exactly linear from there on.
  const std::vector<TimedPoint> pts{{1, 1e-6}, {4, 1e-6}, {16, 16e-8}, {64, 64e-8}, {256, 256e-8}};
  const FitResult all = fit_power_law(pts);
  CHECK(all.n_points == 5);
  CHECK(all.fit_from == 0);
  CHECK(std::abs(all.exponent - 1.0) > 0.1);

  const FitResult tail = fit_power_law(pts, 16);
  CHECK(tail.n_points == 3);
  CHECK(tail.fit_from == 16);
  CHECK(tail.exponent == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(tail.segments.size() == 2);
  CHECK(tail.segments.front().from_length == 16);
  CHECK(tail.longest_length == 256);
}

// t = a + c*L with a = 1e-5 s of fixed overhead and c = 1e-8 s per token: overhead and
// per-token work are equal at L = 1000. Computed beside this test: L = 16..4096 (x4) fits
// p = 0.2790, sublinear; L = 16384..4194304 (x4) fits p = 0.9905, linear (the asymptote
// judgement of these series is in test_asymptote_fit.cpp).
namespace {
std::vector<TimedPoint> overhead_plus_linear(double first_length) {
  std::vector<TimedPoint> pts;
  for (double L = first_length, i = 0; i < 5; L *= 4, ++i) pts.push_back({L, 1e-5 + 1e-8 * L});
  return pts;
}
}  // namespace

TEST_CASE("a short sweep of overhead plus linear work reads sublinear") {
  const FitResult f = fit_power_law(overhead_plus_linear(16));
  CHECK(f.exponent == doctest::Approx(0.27903).epsilon(1e-4));
  CHECK(f.regime == Regime::sublinear);
  CHECK(f.segments.back().exponent > *f.ci95_high);
}

TEST_CASE("a long sweep of overhead plus linear work reads linear") {
  const FitResult f = fit_power_law(overhead_plus_linear(16384));
  CHECK(f.exponent == doctest::Approx(0.99046).epsilon(1e-4));
  CHECK(f.regime == Regime::linear);
}
