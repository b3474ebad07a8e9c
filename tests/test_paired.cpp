// The paired comparison of `readbench ab` (core/paired.hpp) on series whose answer is known.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/errors.hpp"
#include "core/paired.hpp"

using namespace readbench;

namespace {

// An affine read: 2 us a call plus 1 ns a token.
double affine(double length) {
  return 2e-6 + 1e-9 * length;
}

// `pairs` pairs at each of 16..65536 (x4). Each pair shares a drift factor (the machine's
// moment), and each slice has its own small noise; the head's time is head_of(L) times the
// base's before noise.
template <class HeadOf>
std::vector<PairedLength> series(int pairs, double drift, double noise, HeadOf head_of,
                                 std::uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> shared(0, drift), own_noise(0, noise > 0 ? noise : 1);
  const auto own = [&](std::mt19937_64& g) { return noise > 0 ? own_noise(g) : 1.0; };
  std::vector<PairedLength> out;
  for (std::int64_t len = 16; len <= 65536; len *= 4) {
    PairedLength pl{len, {}, {}};
    for (int i = 0; i < pairs; ++i) {
      const double moment = shared(rng);
      pl.base_s.push_back(affine(double(len)) * moment * own(rng));
      pl.head_s.push_back(affine(double(len)) * head_of(double(len)) * moment * own(rng));
    }
    out.push_back(pl);
  }
  return out;
}

}  // namespace

TEST_CASE("identical slices compare as equal and pass") {
  const auto s = series(8, 0.3, 0.0, [](double) { return 1.0; });
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(c.region_lengths == 4);
  for (const LengthRatio& lr : c.lengths) {
    CHECK(lr.ratio == doctest::Approx(1.0).epsilon(1e-12));
    REQUIRE(lr.ci95);
    CHECK(lr.ci95->low == doctest::Approx(1.0).epsilon(1e-12));
  }
  REQUIRE(c.delta_p);
  CHECK(*c.delta_p == doctest::Approx(0).epsilon(1e-12));
  REQUIRE(c.cost_ratio);
  CHECK(*c.cost_ratio == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(c.verdict == AbVerdict::pass);
}

TEST_CASE("a head ten percent slower everywhere has a cost ratio of 1.1 and no exponent change") {
  // Half the machine's bandwidth lost in some pairs: the pairing cancels it.
  const auto s = series(10, 0.5, 0.0, [](double) { return 1.1; });
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(*c.cost_ratio == doctest::Approx(1.1).epsilon(1e-9));
  CHECK(*c.delta_p == doctest::Approx(0).epsilon(1e-9));
  CHECK(c.cost_verdict == AbVerdict::regression);
  CHECK(c.delta_p_verdict == AbVerdict::pass);
  CHECK(c.verdict == AbVerdict::regression);
}

TEST_CASE("a head growing as (L/1024)^0.1 from the region's start has delta p of 0.1") {
  const auto s = series(10, 0.3, 0.0, [](double len) { return len < 1024 ? 1.0 : std::pow(len / 1024, 0.1); });
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(*c.delta_p == doctest::Approx(0.1).epsilon(1e-9));
  CHECK(c.delta_p_verdict == AbVerdict::regression);
  CHECK(c.verdict == AbVerdict::regression);
  // Below the region the ratio is 1: the region is what the exponent change is measured over.
  CHECK(c.lengths.front().ratio == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("noisy equal arms give CIs that hold the truth") {
  const auto s = series(12, 0.4, 0.02, [](double) { return 1.0; }, 11);
  const PairedComparison c = compare_pairs(s, 1024, {0.05, 1.05});
  REQUIRE(c.delta_p_ci95);
  REQUIRE(c.cost_ratio_ci95);
  CHECK(c.delta_p_ci95->low < 0);
  CHECK(c.delta_p_ci95->high > 0);
  CHECK(c.cost_ratio_ci95->low < 1);
  CHECK(c.cost_ratio_ci95->high > 1);
  CHECK(c.verdict == AbVerdict::pass);
  for (const LengthRatio& lr : c.lengths) {
    REQUIRE(lr.ci95);
    CHECK(lr.ci95->low < lr.ratio);
    CHECK(lr.ci95->high > lr.ratio);
  }
}

TEST_CASE("offsets between the lengths' workloads that the pairs cannot see are estimated") {
  // Every pair of a length agrees exactly (no noise within a length), but the lengths of the
  // region 1024..65536 sit at log-ratios a, -a, -a, a: a pattern with no slope and no mean, so
  // the line through them is flat at 0 and its residuals are the offsets themselves. RSS = 4a^2
  // over K - 2 = 2 degrees of freedom: the spread is a * sqrt(2).
  const double a = 0.03;
  const double offsets[] = {0, 0, 0, a, -a, -a, a};  // at 16, 64, 256, 1024, ..., 65536
  std::vector<PairedLength> s;
  int k = 0;
  for (std::int64_t len = 16; len <= 65536; len *= 4, ++k) {
    PairedLength pl{len, {}, {}};
    for (int i = 0; i < 8; ++i) {
      pl.base_s.push_back(affine(double(len)) * (1 + 0.1 * i));
      pl.head_s.push_back(pl.base_s.back() * std::exp(offsets[k]));
    }
    s.push_back(pl);
  }
  // The mean's method (older reports) models the ratio by the line alone.
  const PairedComparison c = compare_pairs(s, 1024, {0.05, 1.02}, PairedMethod::mean_t);
  CHECK(c.region_lengths == 4);
  CHECK(c.between_lengths_sd == doctest::Approx(a * std::sqrt(2.0)).epsilon(1e-9));
  // The pairs alone would give a zero-width interval; the offsets widen it past the bound.
  REQUIRE(c.cost_ratio_ci95);
  CHECK(c.cost_ratio_ci95->high - c.cost_ratio_ci95->low > 0.02);
  REQUIRE(c.delta_p_ci95);
  CHECK(c.delta_p_ci95->low < 0);
  CHECK(c.delta_p_ci95->high > 0);
  CHECK(c.reason.find("offsets of about 4.2% between the lengths' workloads") != std::string::npos);
}

TEST_CASE("lengths on one line beside their pairs' noise add no spread between lengths") {
  // A head 5% slower everywhere with noise in the pairs: means on a flat line, no excess.
  const auto s = series(12, 0.3, 0.0, [](double) { return 1.05; }, 5);
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(c.between_lengths_sd == 0);
  REQUIRE(c.cost_ratio_ci95);
  CHECK(c.cost_ratio_ci95->low == doctest::Approx(1.05).epsilon(1e-9));
  CHECK(c.verdict == AbVerdict::regression);
}

TEST_CASE("a region of two lengths has no spread between lengths to estimate") {
  const auto s = series(8, 0.3, 0.02, [](double) { return 1.0; }, 9);
  CHECK(compare_pairs(s, 16384, {}).between_lengths_sd == 0);
}

TEST_CASE("the bootstrap is repeatable: the same pairs give the same intervals") {
  const auto s = series(9, 0.4, 0.03, [](double) { return 1.02; }, 3);
  const PairedComparison a = compare_pairs(s, 256, {}), b = compare_pairs(s, 256, {});
  CHECK(a.delta_p_ci95->low == b.delta_p_ci95->low);
  CHECK(a.cost_ratio_ci95->high == b.cost_ratio_ci95->high);
}

TEST_CASE("a CI that straddles its bound is inconclusive") {
  CHECK(verdict_against(Interval{0.9, 1.1}, 1.0) == AbVerdict::inconclusive);
  CHECK(verdict_against(Interval{1.01, 1.1}, 1.0) == AbVerdict::regression);
  CHECK(verdict_against(Interval{0.9, 1.0}, 1.0) == AbVerdict::pass);
  CHECK(verdict_against(std::nullopt, 1.0) == AbVerdict::inconclusive);
}

TEST_CASE("lengths of too few pairs give no interval and no verdict") {
  // The median's binomial interval needs six pairs, the mean's t interval three.
  for (const auto& few : {std::pair{PairedMethod::median, 5}, std::pair{PairedMethod::mean_t, 2}}) {
    const PairedMethod method = few.first;
    const int pairs = few.second;
    CAPTURE(to_string(method));
    const auto s = series(pairs, 0.1, 0.01, [](double) { return 1.5; });
    const PairedComparison c = compare_pairs(s, 1024, {}, method);
    CHECK_FALSE(c.lengths.front().ci95);
    CHECK_FALSE(c.cost_ratio_ci95);
    CHECK(c.verdict == AbVerdict::inconclusive);
    CHECK(c.reason.find("fewer than " + std::to_string(min_pairs(method)) + " pairs") != std::string::npos);
    const PairedComparison more = compare_pairs(series(pairs + 1, 0.1, 0.01, [](double) { return 1.5; }), 1024, {}, method);
    CHECK(more.lengths.front().ci95);
    CHECK(more.verdict == AbVerdict::regression);
  }
}

TEST_CASE("a length's ratio is its pairs' median log-ratio, its CI two of their order statistics") {
  // Twelve pairs at log-ratios 0.01 * (i - 5.5) shuffled: median 0; the binomial interval of
  // twelve is [x_(3), x_(10)] (P(X <= 2) = 0.019 for X ~ B(12, 1/2), P(X <= 3) = 0.073).
  const int order[] = {7, 2, 11, 0, 5, 9, 3, 10, 1, 6, 8, 4};
  std::vector<PairedLength> s;
  for (std::int64_t len = 1024; len <= 65536; len *= 4) {
    PairedLength pl{len, {}, {}};
    for (int i : order) {
      pl.base_s.push_back(affine(double(len)));
      pl.head_s.push_back(affine(double(len)) * std::exp(0.01 * (i - 5.5)));
    }
    s.push_back(pl);
  }
  const PairedComparison c = compare_pairs(s, 1024, {});
  for (const LengthRatio& lr : c.lengths) {
    CHECK(lr.ratio == doctest::Approx(1.0).epsilon(1e-12));
    REQUIRE(lr.ci95);
    CHECK(lr.ci95->low == doctest::Approx(std::exp(0.01 * (2 - 5.5))).epsilon(1e-12));
    CHECK(lr.ci95->high == doctest::Approx(std::exp(0.01 * (9 - 5.5))).epsilon(1e-12));
  }
}

TEST_CASE("a few pairs caught by a burst on one side move the median little and the mean much") {
  // Forty pairs of equal arms with 2% noise; in six of them one slice (head or base, by turns)
  // ran 60% slow. The mean's interval is dragged wide; the median's stays near 1.
  std::vector<PairedLength> s;
  std::mt19937_64 rng(21);
  std::normal_distribution<double> noise(0, 0.02);
  for (std::int64_t len = 1024; len <= 65536; len *= 4) {
    PairedLength pl{len, {}, {}};
    for (int i = 0; i < 40; ++i) {
      double b = affine(double(len)) * std::exp(noise(rng)), h = affine(double(len)) * std::exp(noise(rng));
      if (i % 7 == 3) (i % 2 ? h : b) *= 1.6;
      pl.base_s.push_back(b);
      pl.head_s.push_back(h);
    }
    s.push_back(pl);
  }
  const PairedComparison median = compare_pairs(s, 1024, {}), mean = compare_pairs(s, 1024, {}, PairedMethod::mean_t);
  REQUIRE(median.cost_ratio_ci95);
  REQUIRE(mean.cost_ratio_ci95);
  const auto width = [](const Interval& i) { return i.high - i.low; };
  CHECK(width(*median.cost_ratio_ci95) < 0.6 * width(*mean.cost_ratio_ci95));
  CHECK(median.cost_ratio_ci95->low < 1);
  CHECK(median.cost_ratio_ci95->high > 1);
  CHECK(median.verdict == AbVerdict::pass);
}

TEST_CASE("a head whose extra work is partly fixed reads no offsets between lengths") {
  // The head adds 3% of the base's per-token cost plus a fixed 1 us a call: its ratio falls
  // from 1.5 toward 1.03 along L, a curve no line in log L follows. The ratio of two lines
  // t0 + b*L fits it exactly, so nothing is left over for offsets, and the cost ratio is 1.03
  // with an interval as narrow as the pairs make it.
  // Each length sees the same moments, so the base's medians lie on its line.
  std::vector<PairedLength> s;
  std::lognormal_distribution<double> moment(0, 0.3);
  for (std::int64_t len = 1024; len <= 262144; len *= 4) {
    std::mt19937_64 rng(5);
    PairedLength pl{len, {}, {}};
    for (int i = 0; i < 10; ++i) {
      const double m = moment(rng);
      pl.base_s.push_back(affine(double(len)) * m);
      pl.head_s.push_back((affine(double(len)) + 0.03e-9 * double(len) + 1e-6) * m);
    }
    s.push_back(pl);
  }
  const PairedComparison line = compare_pairs(s, 1024, {}, PairedMethod::mean_t);
  CHECK(line.between_lengths_sd > 0.01);  // the line reads the curve as offsets
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(c.between_lengths_sd == 0);
  REQUIRE(c.cost_ratio_ci95);
  CHECK(*c.cost_ratio == doctest::Approx(1.03).epsilon(1e-9));
  CHECK(c.cost_ratio_ci95->low == doctest::Approx(1.03).epsilon(1e-9));
  CHECK(c.cost_verdict == AbVerdict::regression);
}

TEST_CASE("a head growing as a power of L reads no offsets between lengths either") {
  // The line in log L fits it; the ratio of two lines would not, and the closer model is kept.
  const auto s = series(10, 0.3, 0.0, [](double len) { return std::pow(len / 16, 0.1); });
  const PairedComparison c = compare_pairs(s, 1024, {});
  CHECK(c.between_lengths_sd == 0);
  CHECK(*c.delta_p == doctest::Approx(0.1).epsilon(1e-9));
  CHECK(c.delta_p_verdict == AbVerdict::regression);
}

TEST_CASE("method words name the methods") {
  for (const auto& n : kPairedMethodNames) CHECK(find_named(kPairedMethodNames, n.name) == n.value);
  CHECK(to_string(PairedMethod::median).find("median") != std::string_view::npos);
}

TEST_CASE("a region of one length compares no exponent") {
  const auto s = series(5, 0.1, 0.01, [](double) { return 1.0; });
  const PairedComparison c = compare_pairs(s, 65536, {});
  CHECK(c.region_lengths == 1);
  CHECK_FALSE(c.delta_p);
  CHECK(c.verdict == AbVerdict::inconclusive);
  CHECK(c.reason.find("holds 1 length") != std::string::npos);
}

TEST_CASE("pairs that cannot be compared are refused, naming the length") {
  auto s = series(4, 0.1, 0.01, [](double) { return 1.0; });
  auto unordered = s;
  std::swap(unordered[0], unordered[1]);
  CHECK_THROWS_WITH_AS(compare_pairs(unordered, 0, {}), doctest::Contains("must increase"), InputError);
  auto uneven = s;
  uneven[2].head_s.pop_back();
  CHECK_THROWS_WITH_AS(compare_pairs(uneven, 0, {}), doctest::Contains("L=256 has 4 base slices but 3"),
                       InputError);
  auto zero = s;
  zero[1].base_s[0] = 0;
  CHECK_THROWS_WITH_AS(compare_pairs(zero, 0, {}), doctest::Contains("L=64 has a slice time of 0"),
                       InputError);
}

TEST_CASE("verdict words parse back to their values") {
  for (const auto& n : kAbVerdictNames) CHECK(parse_ab_verdict(n.name) == n.value);
  CHECK_THROWS_AS(parse_ab_verdict("maybe"), InputError);
}
