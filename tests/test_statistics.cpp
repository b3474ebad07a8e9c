// Summary statistics of timing samples on sets small enough to do by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/errors.hpp"
#include "core/statistics.hpp"

using namespace readbench;

TEST_CASE("an odd-sized set summarizes to its middle value and sample deviation") {
  // Unsorted on purpose. mean 2; deviations -1, 0, 1; stddev sqrt(2 / (3 - 1)) = 1.
  const SampleSummary s = summarize({3.0, 1.0, 2.0});
  CHECK(s.count == 3);
  CHECK(s.min == 1.0);
  CHECK(s.median == 2.0);
  CHECK(s.mean == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(s.stddev == doctest::Approx(1.0).epsilon(1e-15));
  CHECK(s.max == 3.0);
}

TEST_CASE("an even-sized set takes the mean of the two middle values as its median") {
  // mean 2.5; squared deviations 2.25, 0.25, 0.25, 2.25 sum to 5; stddev sqrt(5 / 3).
  const SampleSummary s = summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(s.count == 4);
  CHECK(s.min == 1.0);
  CHECK(s.median == 2.5);
  CHECK(s.mean == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(s.stddev == doctest::Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-15));
  CHECK(s.max == 4.0);
}

TEST_CASE("one sample has zero spread and zero noise") {
  const SampleSummary s = summarize({7e-6});
  CHECK(s.count == 1);
  CHECK(s.min == 7e-6);
  CHECK(s.median == 7e-6);
  CHECK(s.max == 7e-6);
  CHECK(s.stddev == 0.0);
  CHECK(s.noise == 0.0);
}

TEST_CASE("identical samples have zero noise") {
  const SampleSummary s = summarize(std::vector<double>(20, 3e-6));
  CHECK(s.stddev <= 1e-12 * s.mean);  // the mean itself carries rounding error
  CHECK(s.median == 3e-6);
  CHECK(s.noise == 0.0);
}

TEST_CASE("noise is the median's standard error from the MAD, relative to the median") {
  // {1, 2, 3, 4, 100}: median 3; |x - 3| = 2, 1, 0, 1, 97 -> sorted 0, 1, 1, 2, 97, MAD 1.
  // noise = 1.2533 * 1.4826 * 1 / sqrt(5) / 3.
  const SampleSummary s = summarize({1, 2, 3, 4, 100});
  CHECK(s.median == 3.0);
  CHECK(s.mean == doctest::Approx(22.0).epsilon(1e-15));
  CHECK(s.noise == doctest::Approx(1.2533 * 1.4826 / std::sqrt(5.0) / 3.0).epsilon(1e-12));
}

TEST_CASE("an outlier moves the mean but not the noise") {
  const SampleSummary tame = summarize({1, 2, 3, 4, 5});
  const SampleSummary wild = summarize({1, 2, 3, 4, 100});
  CHECK(wild.mean > 4 * tame.mean);
  CHECK(wild.noise == doctest::Approx(tame.noise).epsilon(1e-15));
}

TEST_CASE("noise shrinks as the same spread is sampled more often") {
  // Alternating 1, 3: median 2, MAD 1 at any even count, so noise falls as 1 / sqrt(n).
  std::vector<double> four{1, 3, 1, 3}, sixteen;
  for (int i = 0; i < 4; ++i) sixteen.insert(sixteen.end(), four.begin(), four.end());
  const double n4 = summarize(four).noise, n16 = summarize(sixteen).noise;
  CHECK(n4 == doctest::Approx(1.2533 * 1.4826 / 2.0 / 2.0).epsilon(1e-12));
  CHECK(n16 == doctest::Approx(n4 / 2.0).epsilon(1e-12));
}

TEST_CASE("an empty set cannot be summarized") {
  CHECK_THROWS_AS(summarize({}), InputError);
}
