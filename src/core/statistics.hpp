#pragma once
// Summary statistics of timing samples and the noise figure the sampler stops on.
#include <vector>

namespace readbench {

struct SampleSummary {
  int count = 0;
  double min = 0, median = 0, mean = 0, stddev = 0, max = 0;
  // Relative standard error of the median, estimated robustly from the median absolute
  // deviation: 1.2533 * 1.4826 * MAD / sqrt(n) / median. Outliers from a noisy neighbour
  // barely move it, and it shrinks as samples accumulate, so a stopping rule converges.
  double noise = 0;
};

// Throws InputError on an empty set.
SampleSummary summarize(std::vector<double> samples);

// The median of `v`, not empty: its middle value, or the mean of the middle two for an even
// count. median_of_sorted takes `v` sorted already.
double median_of(std::vector<double> v);
double median_of_sorted(const std::vector<double>& v);

}  // namespace readbench
