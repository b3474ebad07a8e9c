// The fixed + marginal decomposition and the asymptote judgement on closed-form series whose
// answers are known, and the affine fit's CIs against an independent computation.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/asymptote_fit.hpp"
#include "core/errors.hpp"
#include "core/marginal_cost_fit.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

// t = t0 + b*L at L = first, 4*first, ... (count lengths).
std::vector<TimedPoint> affine_series(double t0, double b, double first, int count) {
  std::vector<TimedPoint> pts;
  double L = first;
  for (int i = 0; i < count; ++i, L *= 4) pts.push_back({L, t0 + b * L});
  return pts;
}

bool relative_close(double a, double b, double tol) {
  return std::abs(a - b) <= tol * std::abs(b);
}

}  // namespace

// --- the affine fit -------------------------------------------------------------------------

TEST_CASE("an exact affine series gives back its fixed and marginal cost to 1e-9") {
  // Plain variables, not structured bindings: clang before 16 cannot capture those (CAPTURE).
  for (const auto& costs : {std::pair{4e-6, 1e-9}, std::pair{2e-5, 3e-7}, std::pair{1e-3, 1e-12}}) {
    const double t0 = costs.first, b = costs.second;
    CAPTURE(t0);
    CAPTURE(b);
    const AffineFit f = fit_affine(affine_series(t0, b, 16, 8));
    CHECK(relative_close(f.fixed_s, t0, 1e-9));
    CHECK(relative_close(f.marginal_s, b, 1e-9));
    CHECK(f.n_points == 8);
    CHECK(f.rms_relative_error <= 1e-12);
    REQUIRE(f.marginal_ci95_low);
    CHECK(relative_close(*f.marginal_ci95_low, b, 1e-9));
    CHECK(relative_close(*f.fixed_ci95_high, t0, 1e-9));
  }
}

TEST_CASE("the affine fit's CIs match an independent computation on a small noisy set") {
  // Least squares on relative error is ordinary least squares of 1 on the columns (1/t, L/t)
  // with no intercept. Solved here by Gram-Schmidt (QR), an independent route to the same
  // estimates, standard errors sigma * sqrt(diag((R'R)^-1)) and t(0.975, 3) = 3.182446305284263.
  const std::vector<TimedPoint> pts{
      {16, 5.1e-6}, {64, 5.0e-6}, {256, 5.6e-6}, {1024, 6.3e-6}, {4096, 9.2e-6}};
  const std::size_t n = pts.size();
  std::vector<double> a1(n), a2(n);
  for (std::size_t i = 0; i < n; ++i) {
    a1[i] = 1 / pts[i].seconds;
    a2[i] = pts[i].length / pts[i].seconds;
  }
  auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += u[i] * v[i];
    return s;
  };
  const double r11 = std::sqrt(dot(a1, a1));
  std::vector<double> q1(n), q2(n);
  for (std::size_t i = 0; i < n; ++i) q1[i] = a1[i] / r11;
  const double r12 = dot(q1, a2);
  for (std::size_t i = 0; i < n; ++i) q2[i] = a2[i] - r12 * q1[i];
  const double r22 = std::sqrt(dot(q2, q2));
  for (double& v : q2) v /= r22;
  const std::vector<double> ones(n, 1.0);
  const double c1 = dot(q1, ones), c2 = dot(q2, ones);
  const double b = c2 / r22;
  const double t0 = (c1 - r12 * b) / r11;
  double ss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = 1 - t0 * a1[i] - b * a2[i];
    ss += r * r;
  }
  const double sigma = std::sqrt(ss / double(n - 2));
  // (R'R)^-1 = R^-1 R^-T with R^-1 = [[1/r11, -r12/(r11 r22)], [0, 1/r22]].
  const double inv11 = 1 / r11, inv12 = -r12 / (r11 * r22), inv22 = 1 / r22;
  const double se_t0 = sigma * std::sqrt(inv11 * inv11 + inv12 * inv12);
  const double se_b = sigma * inv22;
  const double t = 3.182446305284263;

  const AffineFit f = fit_affine(pts);
  CHECK(relative_close(f.fixed_s, t0, 1e-9));
  CHECK(relative_close(f.marginal_s, b, 1e-9));
  REQUIRE(f.fixed_ci95_low);
  REQUIRE(f.marginal_ci95_low);
  CHECK(relative_close(*f.fixed_ci95_low, t0 - t * se_t0, 1e-9));
  CHECK(relative_close(*f.fixed_ci95_high, t0 + t * se_t0, 1e-9));
  CHECK(relative_close(*f.marginal_ci95_low, b - t * se_b, 1e-9));
  CHECK(relative_close(*f.marginal_ci95_high, b + t * se_b, 1e-9));
  CHECK(f.rms_relative_error == doctest::Approx(std::sqrt(ss / double(n))).epsilon(1e-9));
  CHECK(f.ci95_reason.empty());
}

TEST_CASE("the affine fit holds at any scale a double holds: tiny times, huge lengths") {
  // 1/t^2 overflows for t near 1e-200 and underflows for t near 1e200 unless the fit works in
  // units of the series itself.
  for (const auto& costs : {std::array{7e-201, 2e-202, 16.0}, std::array{3e150, 2e149, 16.0},
                            std::array{0.0, 1e-203, 1e200}}) {
    const double t0 = costs[0], b = costs[1], first = costs[2];
    CAPTURE(t0);
    CAPTURE(first);
    const AffineFit f = fit_affine(affine_series(t0, b, first, 5));
    CHECK(std::abs(f.fixed_s - t0) <= 1e-9 * (t0 + b * first));
    CHECK(relative_close(f.marginal_s, b, 1e-9));
    REQUIRE(f.marginal_ci95_low.has_value());
    CHECK(std::isfinite(*f.marginal_ci95_low));
    CHECK(std::isfinite(*f.fixed_ci95_high));
  }
}

TEST_CASE("two points give an exact affine fit with no CI and say why") {
  const AffineFit f = fit_affine({{16, 2e-6}, {64, 5e-6}});
  CHECK(f.marginal_s == doctest::Approx(3e-6 / 48).epsilon(1e-12));
  CHECK(f.fixed_s == doctest::Approx(2e-6 - 16 * 3e-6 / 48).epsilon(1e-12));
  CHECK_FALSE(f.fixed_ci95_low);
  CHECK_FALSE(f.marginal_ci95_low);
  CHECK(f.ci95_reason.find("2 points") != std::string::npos);
}

TEST_CASE("the affine fit refuses what the power law refuses, naming the value") {
  CHECK_THROWS_AS(fit_affine({{16, 1e-6}}), TooFewPoints);
  CHECK_THROWS_AS(fit_affine({{16, 1e-6}, {16, 2e-6}}), TooFewDistinctLengths);
  CHECK(error_message([] {
          fit_affine({{16, 1e-6}, {64, -1.0}});
        }).find("-1") != std::string::npos);
  CHECK_THROWS_AS(fit_affine({{0, 1e-6}, {64, 1e-6}}), BadLength);
  CHECK_THROWS_AS(fit_affine({{16, std::numeric_limits<double>::quiet_NaN()}, {64, 1e-6}}),
                  BadTime);
}

// --- the asymptote judgement ----------------------------------------------------------------

TEST_CASE("a launch-bound read over 16..4096 is judged not at its asymptote") {
  // t = 4 us + 1 ns/token: at L = 4096 only half the time depends on the length.
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 16, 5));
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.asymptote_reason.find("fixed cost") != std::string::npos);
  CHECK(f.fit_from == 16);  // no two lengths reach the share: the whole series is fitted
  CHECK(f.power.exponent < 0.5);
  CHECK(relative_close(f.affine.marginal_s, 1e-9, 1e-9));
  CHECK(relative_close(f.affine.fixed_s, 4e-6, 1e-9));
  // Shares (t - t0)/t, b*L/t for this exact line, in the order of the points.
  REQUIRE(f.shares.size() == 5);
  CHECK(f.shares[0] == doctest::Approx(16e-9 / (4e-6 + 16e-9)).epsilon(1e-9));
  CHECK(f.shares[4] == doctest::Approx(4096e-9 / (4e-6 + 4096e-9)).epsilon(1e-9));
  // Explicitly fitted from 16 too: the shortest fitted length's share is 0.004.
  CHECK_FALSE(fit_read(affine_series(4e-6, 1e-9, 16, 5), {0.0, {}, {}}).asymptote_reached);
}

TEST_CASE("the same read over 65536..4194304 reaches its asymptote with p within 0.02 of 1") {
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 65536, 4));
  CHECK(f.asymptote_reached);
  CHECK(std::abs(f.power.exponent - 1) <= 0.02);
  CHECK(f.power.regime == Regime::linear);
  CHECK(f.fit_from == 65536);
  CHECK(f.region_lengths == 4);
}

TEST_CASE("fit_from auto starts at the first length from which every share reaches 0.8") {
  // Shares at 16..65536 (x4): 0.004 0.016 0.06 0.20 0.51 0.80 0.94 0.98 ...; 16384 is the
  // first at or above 0.8 (0.8038).
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 16, 10));
  CHECK(f.fit_from_auto);
  CHECK(f.fit_from == 16384);
  CHECK(f.region_lengths == 5);  // 16384 .. 4194304
  CHECK(f.power.n_points == 5);
  CHECK(f.affine.n_points == 5);
  CHECK(f.share_basis.n_points == 5);  // t0 of the region decides the shares
  CHECK(f.asymptote_reached);
  CHECK(f.power.exponent == doctest::Approx(0.964624).epsilon(1e-5));
}

TEST_CASE("an explicit fit_from is kept and judged by the share at its first length") {
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 16, 10), {1024.0, {}, {}});
  CHECK_FALSE(f.fit_from_auto);
  CHECK(f.fit_from == 1024);
  CHECK(f.power.n_points == 7);      // 1024 .. 4194304
  CHECK_FALSE(f.asymptote_reached);  // 20% at L = 1024
  CHECK(f.asymptote_reason.find("L=1024") != std::string::npos);
}

TEST_CASE("fewer than four lengths past the fixed cost are not enough to call the asymptote") {
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 65536, 3));
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.shortfall == Shortfall::small_region);
  CHECK(f.basis == FitBasis::whole_grid);
  CHECK(f.asymptote_reason.find("3 lengths spanning 16x") != std::string::npos);
  // Under version 6's rules, which a version 6 report is read back by, the count decided.
  ReadFitOptions v6;
  v6.rules = FitRules::settled;
  CHECK(
      fit_read(affine_series(4e-6, 1e-9, 65536, 3), v6).asymptote_reason.find("3 fitted lengths") !=
      std::string::npos);
}

// --- the region rule ----------------------------------------------------------------------

TEST_CASE("an auto region whose dominant tail is two lengths 1% apart is widened and not headlined") {
  // The shape: twelve noisy lengths whose last two (405 and 409) alone reach the share;
  // their slope is noise. The fit widens to the shortest tail of 4 lengths spanning 4x.
  const std::vector<TimedPoint> pts{{16, 2.0e-5},  {24, 2.1e-5},  {40, 2.0e-5},  {64, 2.3e-5},
                                    {90, 2.2e-5},  {128, 2.6e-5}, {180, 2.5e-5}, {256, 3.0e-5},
                                    {300, 2.9e-5}, {350, 3.1e-5}, {405, 3.0e-5}, {409, 3.2e-5}};
  const ReadFit f = fit_read(pts);
  std::vector<double> fitted;
  for (const TimedPoint& p : pts)
    if (p.length >= f.fit_from) fitted.push_back(p.length);
  CHECK(is_region(fitted));
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.power.n_points >= kRegionLengths);
}

TEST_CASE("a region is four lengths spanning four times") {
  CHECK(is_region({16, 32, 48, 64}));
  CHECK_FALSE(is_region({16, 32, 48, 63}));           // 3.94x
  CHECK_FALSE(is_region({16, 1024, 65536}));          // three lengths
  CHECK_FALSE(is_region({405, 406, 407, 408, 409}));  // five lengths 1% apart
}

TEST_CASE("noise whose line undercuts zero is not an asymptote whatever its shares read") {
  // Four noisy times over 1024..65536 (p = 0.512, r2 = 0.32, CI [-1.75, 2.77]): the line
  // through them has t0 < 0, so every share (t - t0)/t is above 1 (1.14, 2.49, 1.07, 1.04) and
  // passed the 0.8 rule of version 6.
  const std::vector<TimedPoint> pts{
      {1024, 0.003829}, {4096, 0.0003664}, {16384, 0.007866}, {65536, 0.0147}};
  ReadFitOptions v6;
  v6.rules = FitRules::settled;
  const ReadFit old = fit_read(pts, v6);
  REQUIRE(old.asymptote_reached);  // what version 6 said
  const ReadFit f = fit_read(pts);
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.shortfall == Shortfall::unresolved);
  REQUIRE(f.power.ci95_low);
  CHECK(*f.power.ci95_low < 0);
  for (std::size_t i = 0; i < f.shares.size(); ++i) {
    CAPTURE(i);
    CHECK(f.shares[i] >= 0);
    CHECK(f.shares[i] <= 1);
    CHECK(f.raw_shares[i] > 1);  // the raw number stays
    CHECK(f.share_clamped(i));
  }
}

TEST_CASE("a fixed cost whose CI holds zero is not resolved") {
  AffineFit a;
  a.fixed_s = 4.9e-4;
  a.fixed_ci95_low = -1.26e-3;
  a.fixed_ci95_high = 2.24e-3;
  CHECK_FALSE(fixed_cost_resolved(a));
  a.fixed_ci95_low = 1e-6;
  CHECK(fixed_cost_resolved(a));
  a.fixed_ci95_low.reset();  // no CI (two points): not resolved either
  CHECK_FALSE(fixed_cost_resolved(a));
}

namespace {

// A seeded noisy power law of 3 to 12 lengths: random gaps (x1.01 to x4), a fixed cost of 0 to
// 100x the first length's read, p from 0.3 to 1.6, up to 40% multiplicative noise.
std::vector<TimedPoint> random_power_law(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> count(3, 12);
  std::uniform_real_distribution<double> u(0, 1);
  const int n = count(rng);
  const double p = 0.3 + 1.3 * u(rng), c = 1e-9 * std::pow(10, 2 * u(rng));
  double length = 16 * std::pow(2, 10 * u(rng));
  const double t0 = 100 * u(rng) * c * std::pow(length, p) * (u(rng) < 0.3 ? 0 : 1);
  std::vector<TimedPoint> pts;
  for (int i = 0; i < n; ++i) {
    const double noise = std::exp(0.4 * (u(rng) - 0.5));
    pts.push_back({std::round(length), (t0 + c * std::pow(length, p)) * noise});
    length = std::max(length * (u(rng) < 0.5 ? 1.01 + 0.2 * u(rng) : 1 + 3 * u(rng)),
                      std::round(length) + 1);
  }
  return pts;
}

}  // namespace

TEST_CASE("on random noisy power laws the default fit never headlines a tail under the rule") {
  std::mt19937_64 rng(20261205);
  int tails = 0, widened = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<TimedPoint> pts = random_power_law(rng);
    CAPTURE(trial);
    const ReadFit f = fit_read(pts);
    std::vector<double> fitted;
    for (const TimedPoint& p : pts)
      if (p.length >= f.fit_from && (fitted.empty() || fitted.back() != p.length))
        fitted.push_back(p.length);
    const bool tail = f.fit_from > pts.front().length;
    // A tail is always a region; a grid too small for one is fitted whole, and not reached.
    if (tail) {
      ++tails;
      CHECK(int(fitted.size()) >= kRegionLengths);
      CHECK(fitted.back() / fitted.front() >= kRegionSpan);
    } else {
      CHECK(int(fitted.size()) == int(pts.size()));
    }
    if (f.asymptote_reached) CHECK(is_region(fitted));
    widened += f.basis == FitBasis::widened || f.basis == FitBasis::whole_grid ? 1 : 0;
    for (std::size_t i = 0; i < f.shares.size(); ++i) {
      CHECK(f.shares[i] >= 0);
      CHECK(f.shares[i] <= 1);
    }
  }
  // The generator exercises both: tails that are regions, and tried tails that were widened.
  CHECK(tails > 100);
  CHECK(widened > 100);
}

TEST_CASE("a time that does not grow with the length has a non-positive marginal cost, said so") {
  const ReadFit f = fit_read({{16, 5e-6}, {64, 4.9e-6}, {256, 4.8e-6}, {1024, 4.7e-6}},
                             {std::nullopt, 4096.0, 20.0});
  CHECK(f.affine.marginal_s < 0);
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.asymptote_reason.find("not positive") != std::string::npos);
  CHECK_FALSE(f.effective_gbps);
  CHECK_FALSE(f.ceiling_fraction);
  CHECK(f.bandwidth_reason.find("not positive") != std::string::npos);
}

TEST_CASE("a negative fixed cost is reported as it comes out, not hidden") {
  // Superlinear growth makes the line through the points undercut zero at L = 0.
  std::vector<TimedPoint> pts;
  for (double L = 1024; L <= 262144; L *= 4) pts.push_back({L, 1e-12 * L * L / 1024 + 1e-9 * L});
  const ReadFit f = fit_read(pts, {0.0, {}, {}});
  CHECK(f.affine.fixed_s < 0);
  CHECK(f.affine.marginal_s > 0);
}

TEST_CASE("the effective bandwidth is K/V bytes per token over the marginal cost") {
  // 4096 bytes a token at 1 ns a token: 4096 GB/s, 80% of a 5120 GB/s ceiling.
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 65536, 4), {std::nullopt, 4096.0, 5120.0});
  REQUIRE(f.effective_gbps);
  CHECK(*f.effective_gbps == doctest::Approx(4096).epsilon(1e-9));
  REQUIRE(f.ceiling_fraction);
  CHECK(*f.ceiling_fraction == doctest::Approx(0.8).epsilon(1e-9));
  const ReadFit plain = fit_read(affine_series(4e-6, 1e-9, 65536, 4));
  CHECK_FALSE(plain.effective_gbps);
  CHECK(plain.bandwidth_reason.find("bytes") != std::string::npos);
}

TEST_CASE("the read fit refuses degenerate input with the power law's guards") {
  CHECK_THROWS_AS(fit_read({{16, 1e-6}}), TooFewPoints);
  CHECK_THROWS_AS(fit_read({{16, 1e-6}, {16, 1e-6}}), TooFewDistinctLengths);
  CHECK_THROWS_AS(fit_read({{16, 0.0}, {64, 1e-6}}), BadTime);
  CHECK_THROWS_AS(fit_read(affine_series(4e-6, 1e-9, 16, 4), {100000.0, {}, {}}), TooFewPoints);
}

// Gather's contiguous copy outgrows the cache: 0.4 us a token up to 4096, 0.6 us beyond, after
// a 10 us fixed cost, at 16, 64, ..., 1048576.
std::vector<TimedPoint> copy_outgrowing_cache() {
  std::vector<TimedPoint> pts;
  for (double L = 16; L <= 1048576; L *= 4)
    pts.push_back({L, 1e-5 + (L <= 4096 ? 4e-7 * L : 4e-7 * 4096 + 6e-7 * (L - 4096))});
  return pts;
}

TEST_CASE("a read whose cost per token rises is fitted from where the cost has settled") {
  // Every share passes from 64 on, since the line through a rising cost per token has a fixed
  // cost near zero; the cost per token rises 1.46x from 1024 to 1048576 and 1.09x from 16384.
  const std::vector<TimedPoint> pts = copy_outgrowing_cache();
  const ReadFit f = fit_read(pts);
  CHECK(f.fit_from == 16384);
  CHECK(f.region_lengths == 4);
  CHECK(f.asymptote_reached);
  const double first = pts[5].seconds / pts[5].length, last = pts[8].seconds / pts[8].length;
  CHECK(f.cost_rise == doctest::Approx(last / first).epsilon(1e-12));
  CHECK(f.cost_rise_length == 1048576);
  CHECK(f.power.exponent == doctest::Approx(1.03).epsilon(0.02));
  // The share alone (reports before schema version 6) fits from near the start.
  ReadFitOptions share_only;
  share_only.rules = FitRules::share_only;
  const ReadFit old = fit_read(pts, share_only);
  CHECK(old.asymptote_reached);
  CHECK(old.fit_from <= 1024);
}

TEST_CASE("a cost per token that has not settled by the longest length is not the asymptote") {
  // Up to 65536 only: from 16384 on only two lengths are settled, too few for a region, so it
  // starts where a region of four or more lengths rises least (from 256: 34%, the fixed cost
  // still in its first length) and is judged by its rise.
  std::vector<TimedPoint> pts = copy_outgrowing_cache();
  pts.resize(7);
  const ReadFit f = fit_read(pts);
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.fit_from == 256);
  CHECK(f.asymptote_reason.find("cost per token rises") != std::string::npos);
  // A given region over the change is judged by the rise, which the reason names.
  const ReadFit given = fit_read(pts, {256.0, {}, {}});
  CHECK_FALSE(given.asymptote_reached);
  CHECK(given.cost_rise > 1 + kSettleRise);
  CHECK(given.asymptote_reason.find("cost per token rises") != std::string::npos);
  CHECK(given.asymptote_reason.find("L=65536") != std::string::npos);
  // One length more and the region from 16384 holds four.
  CHECK(fit_read(copy_outgrowing_cache()).fit_from == 16384);
}

TEST_CASE("a superlinear read never settles, and says so") {
  // t = 1e-9 * L^1.2: the cost per token rises 2.3x over every x64 of lengths.
  std::vector<TimedPoint> pts;
  for (double L = 256; L <= 4194304; L *= 4) pts.push_back({L, 1e-9 * std::pow(L, 1.2)});
  const ReadFit f = fit_read(pts);
  CHECK_FALSE(f.asymptote_reached);
  CHECK(f.asymptote_reason.find("grows faster than linearly") != std::string::npos);
  CHECK(f.power.exponent == doctest::Approx(1.2).epsilon(1e-9));  // the exponent still says it
}

TEST_CASE("an affine read's cost per token only falls: its rise is 1 at the region's start") {
  const ReadFit f = fit_read(affine_series(4e-6, 1e-9, 16, 10));
  CHECK(f.asymptote_reached);
  CHECK(f.cost_rise == 1);
  CHECK(f.cost_rise_length == f.fit_from);
}

TEST_CASE("a regression that bends a settled read upward is not reached, its exponent up") {
  // An affine read over 1024..4194304 times (L/1024)^0.1: 15% more per token every x4 length,
  // 40% over the four lengths from where its shares reach 0.8.
  std::vector<TimedPoint> pts = affine_series(4e-6, 1e-9, 1024, 7);
  const double first = pts.front().length;
  for (TimedPoint& p : pts) p.seconds *= std::pow(p.length / first, 0.1);
  const ReadFit before = fit_read(affine_series(4e-6, 1e-9, 1024, 7));
  CHECK(before.asymptote_reached);
  const ReadFit after = fit_read(pts);
  CHECK_FALSE(after.asymptote_reached);
  CHECK(after.cost_rise > 1 + kSettleRise);
  // Fitted where its cost per token rises least, which is where the read without the bend is
  // fitted: the bend adds exactly 0.1 to the exponent there.
  CHECK(after.fit_from == before.fit_from);
  CHECK(after.power.exponent == doctest::Approx(before.power.exponent + 0.1).epsilon(1e-9));
}
