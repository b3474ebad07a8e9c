#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.hpp"

namespace readbench {

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double median_of(std::vector<double> v) {
  const std::size_t n = v.size();
  const auto mid = v.begin() + std::ptrdiff_t(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  return 0.5 * (*std::max_element(v.begin(), mid) + *mid);
}

SampleSummary summarize(std::vector<double> v) {
  if (v.empty()) throw InputError("no samples to summarize");
  std::sort(v.begin(), v.end());
  SampleSummary s;
  s.count = int(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = median_of_sorted(v);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;

  std::vector<double> dev(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) dev[i] = std::abs(v[i] - s.median);
  std::sort(dev.begin(), dev.end());
  const double mad = median_of_sorted(dev);
  // 1.4826 * MAD estimates sigma for normal data; 1.2533 * sigma / sqrt(n) is the standard
  // error of the median.
  s.noise = s.median > 0 ? 1.2533 * 1.4826 * mad / std::sqrt(double(v.size())) / s.median : 0.0;
  return s;
}

}  // namespace readbench
