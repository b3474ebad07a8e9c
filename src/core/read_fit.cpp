#include "core/read_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace readbench {

namespace {

std::string printf_string(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

// The smallest share at each distinct length.
std::map<double, double> shares_by_length(const std::vector<TimedPoint>& points,
                                          const std::vector<double>& shares) {
  std::map<double, double> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [it, fresh] = out.emplace(points[i].length, shares[i]);
    if (!fresh) it->second = std::min(it->second, shares[i]);
  }
  return out;
}

// The first length from which every longer length's share reaches the threshold, when that
// leaves at least two lengths to fit; else the shortest length (the whole series).
double auto_fit_from(const std::map<double, double>& by_length, bool positive_marginal) {
  double from = by_length.rbegin()->first;
  int reaching = 0;
  for (auto it = by_length.rbegin(); it != by_length.rend() && it->second >= kAsymptoteShare;
       ++it) {
    from = it->first;
    ++reaching;
  }
  if (!positive_marginal || reaching < 2) return by_length.begin()->first;
  return from;
}

}  // namespace

ReadFit fit_read(const std::vector<TimedPoint>& points, const ReadFitOptions& o) {
  ReadFit f;
  f.share_basis = fit_affine(points);  // the guards, over the whole series
  for (const TimedPoint& p : points) f.shares.push_back(f.share_basis.share(p.length, p.seconds));
  const std::map<double, double> by_length = shares_by_length(points, f.shares);
  const bool positive = f.share_basis.marginal_s > 0;

  f.fit_from_auto = !o.fit_from;
  f.fit_from = o.fit_from ? *o.fit_from : auto_fit_from(by_length, positive);
  f.power = fit_power_law(points, f.fit_from);
  f.affine = fit_affine(points, f.fit_from);
  const auto start = by_length.lower_bound(f.fit_from);
  f.region_lengths = int(std::distance(start, by_length.end()));

  if (!positive) {
    f.asymptote_reason = "the marginal cost over every point is not positive (b = " +
                         format_number(f.share_basis.marginal_s) +
                         " s/token): the time does not grow with the length";
  } else if (start->second < kAsymptoteShare) {
    f.asymptote_reason = printf_string(
        "at L=%.0f, the shortest fitted length, %.0f%% of the time is length-dependent, under "
        "%.0f%%: the fixed cost per call still weighs",
        start->first, 100 * start->second, 100 * kAsymptoteShare);
  } else if (f.region_lengths < kAsymptoteLengths) {
    f.asymptote_reason = printf_string(
        "%.0f fitted lengths with at least %.0f%% of the time length-dependent; %.0f "
        "are needed for an exponent to gate on",
        f.region_lengths, 100 * kAsymptoteShare, kAsymptoteLengths);
  } else {
    f.asymptote_reached = true;
    f.asymptote_reason = printf_string(
        "from L=%.0f on at least %.0f%% of the time is length-dependent, over %.0f lengths",
        start->first, 100 * std::min(start->second, 1.0), f.region_lengths);
  }

  f.kv_bytes_per_token = o.kv_bytes_per_token;
  if (!o.kv_bytes_per_token) {
    f.bandwidth_reason = "no K/V bytes per token: the points alone do not say";
  } else if (!(f.affine.marginal_s > 0)) {
    f.bandwidth_reason = "the marginal cost per token is not positive";
  } else {
    f.effective_gbps = *o.kv_bytes_per_token / f.affine.marginal_s / 1e9;
    if (o.read_ceiling_gbps && *o.read_ceiling_gbps > 0)
      f.ceiling_fraction = *f.effective_gbps / *o.read_ceiling_gbps;
  }
  return f;
}

}  // namespace readbench
