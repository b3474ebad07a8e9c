#include "core/read_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/strprintf.hpp"

namespace readbench {

namespace {

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
  const AffineFit whole = fit_affine(points);  // the guards, over the whole series
  const auto shares_with = [&](const AffineFit& basis) {
    std::vector<double> out;
    for (const TimedPoint& p : points) out.push_back(basis.share(p.seconds));
    return out;
  };
  f.fit_from_auto = !o.fit_from;
  if (o.fit_from) {
    f.fit_from = *o.fit_from;
    f.share_basis = f.fit_from > 0 ? fit_affine(points, f.fit_from) : whole;
  } else {
    // The fixed cost that decides the shares is the one seen where the read has settled: a read
    // whose cost per token is higher at short lengths (prefetch ramping up, a split that does
    // not pay yet) has a larger fixed cost there than the line through every point says. Start
    // from that line, then take t0 from the region its shares select, and move the region up
    // while the region's own t0 says so (never down, so this ends).
    f.share_basis = whole;
    f.fit_from = auto_fit_from(shares_by_length(points, shares_with(whole)), whole.marginal_s > 0);
    for (std::size_t step = 0; step < points.size(); ++step) {
      const AffineFit region = fit_affine(points, f.fit_from);
      const double next =
          auto_fit_from(shares_by_length(points, shares_with(region)), region.marginal_s > 0);
      if (!(next > f.fit_from)) {
        if (f.fit_from > shares_by_length(points, shares_with(whole)).begin()->first)
          f.share_basis = region;
        break;
      }
      f.fit_from = next;
    }
  }
  f.shares = shares_with(f.share_basis);
  const std::map<double, double> by_length = shares_by_length(points, f.shares);
  const bool positive = f.share_basis.marginal_s > 0;
  f.power = fit_power_law(points, f.fit_from);
  f.affine = fit_affine(points, f.fit_from);
  const auto start = by_length.lower_bound(f.fit_from);
  f.region_lengths = int(std::distance(start, by_length.end()));

  if (!positive) {
    f.asymptote_reason = "the marginal cost per token is not positive (b = " +
                         format_number(f.share_basis.marginal_s) +
                         " s/token): the time does not grow with the length";
  } else if (start->second < kAsymptoteShare) {
    f.asymptote_reason = strprintf(
        "at L=%.0f, the shortest fitted length, %.0f%% of the time is length-dependent, under "
        "%.0f%%: the fixed cost per call still weighs",
        start->first, 100 * start->second, 100 * kAsymptoteShare);
  } else if (f.region_lengths < kAsymptoteLengths) {
    f.asymptote_reason = strprintf(
        "%d fitted lengths with at least %.0f%% of the time length-dependent; %d "
        "are needed for an exponent to gate on",
        f.region_lengths, 100 * kAsymptoteShare, kAsymptoteLengths);
  } else {
    f.asymptote_reached = true;
    f.asymptote_reason = strprintf(
        "from L=%.0f on at least %.0f%% of the time is length-dependent, over %d lengths",
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
