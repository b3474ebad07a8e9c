#include "core/asymptote_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/enum_names.hpp"
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

struct Rise {
  double ratio = 1;   // the highest cost per token from `from` on over the one at `from`
  double length = 0;  // where it is
};

Rise rise_from(const std::map<double, double>& log_cost, double from) {
  const auto start = log_cost.lower_bound(from);
  double highest = 0;  // log of the ratio
  Rise r{1, start->first};
  for (auto it = start; it != log_cost.end(); ++it)
    if (it->second - start->second > highest) {
      highest = it->second - start->second;
      r.length = it->first;
    }
  // Capped where exp would overflow: a rise past 1e300 says all there is to say.
  r.ratio = std::exp(std::min(highest, 690.0));
  return r;
}

// The first length from `from` on over which the cost per token has settled and which leaves
// the kAsymptoteLengths lengths an asymptote needs; where none has settled, the one of those
// over which it rises least (the region that describes the read best, judged not reached);
// `from` itself when no length leaves that many. So the region of a read whose cost per token
// is near the limit does not fall back to the short lengths from one run to the next, and one
// that never settles is fitted where it is steadiest.
double settled_from(const std::map<double, double>& log_cost, double from, bool span) {
  double best = from, least = std::numeric_limits<double>::infinity();
  for (auto it = log_cost.lower_bound(from); std::distance(it, log_cost.end()) >= kAsymptoteLengths;
       ++it) {
    // Under the region rule a start must also leave kRegionSpan; later starts leave less.
    if (span && log_cost.rbegin()->first < kRegionSpan * it->first) break;
    const double rise = rise_from(log_cost, it->first).ratio;
    if (rise <= 1 + kSettleRise) return it->first;
    if (rise < least) {
      least = rise;
      best = it->first;
    }
  }
  return best;
}

// The distinct lengths from `from` on.
std::vector<double> lengths_from(const std::map<double, double>& by_length, double from) {
  std::vector<double> out;
  for (auto it = by_length.lower_bound(from); it != by_length.end(); ++it) out.push_back(it->first);
  return out;
}

double span_of(const std::vector<double>& lengths) {
  return lengths.empty() ? 1 : lengths.back() / lengths.front();
}

// The highest start at or below `from` whose tail is a region; the shortest length where none
// is (the whole grid).
double widened_from(const std::map<double, double>& by_length, double from) {
  for (auto it = std::make_reverse_iterator(by_length.upper_bound(from)); it != by_length.rend();
       ++it)
    if (is_region(lengths_from(by_length, it->first))) return it->first;
  return by_length.begin()->first;
}

// Whether the growth with the length is resolved: the 95% CIs of the marginal cost and of the
// exponent wholly above zero.
bool growth_resolved(const AffineFit& affine, const FitResult& power) {
  return affine.marginal_ci95_low && *affine.marginal_ci95_low > 0 && power.ci95_low &&
         *power.ci95_low > 0;
}

constexpr Named<Shortfall> kShortfallNames[] = {{Shortfall::none, "none"},
                                                {Shortfall::not_growing, "not-growing"},
                                                {Shortfall::small_region, "small-region"},
                                                {Shortfall::fixed_cost, "fixed-cost"},
                                                {Shortfall::unsettled, "unsettled"},
                                                {Shortfall::unresolved, "unresolved"}};

constexpr Named<FitBasis> kFitBasisNames[] = {{FitBasis::given, "given"},
                                              {FitBasis::region, "region"},
                                              {FitBasis::widened, "widened"},
                                              {FitBasis::whole_grid, "whole-grid"}};

// "the whole grid (L=16..409)" or "L >= 64 (5 lengths, 16x)": a region as the reasons name it.
std::string region_words(double from, int lengths, double span) {
  return strprintf("L >= %s (%d length%s spanning %.3gx)", format_number(from).c_str(), lengths,
                   lengths == 1 ? "" : "s", span);
}

}  // namespace

std::string_view to_string(Shortfall s) {
  return name_in(kShortfallNames, s);
}

std::string_view to_string(FitBasis b) {
  return name_in(kFitBasisNames, b);
}

bool is_region(const std::vector<double>& distinct_lengths) {
  return int(distinct_lengths.size()) >= kRegionLengths && span_of(distinct_lengths) >= kRegionSpan;
}

// Logarithms, so that the ratios of any times and lengths a double holds stay finite.
std::map<double, double> log_cost_per_token(const std::vector<TimedPoint>& points) {
  std::map<double, std::pair<double, int>> means;
  for (const TimedPoint& p : points) {
    auto& [mean, n] = means[p.length];
    mean += (p.seconds - mean) / ++n;  // no sum to overflow
  }
  std::map<double, double> out;
  for (const auto& [length, m] : means) out[length] = std::log(m.first) - std::log(length);
  return out;
}

bool only_unsettled(const ReadFit& f) {
  return f.shortfall == Shortfall::unsettled && f.region_lengths >= kAsymptoteLengths &&
         (f.rules != FitRules::region || growth_resolved(f.affine, f.power));
}

bool fixed_cost_resolved(const AffineFit& a) {
  return a.fixed_ci95_low && *a.fixed_ci95_low > 0;
}

ReadFit fit_read(const std::vector<TimedPoint>& points, const ReadFitOptions& o) {
  ReadFit f;
  const AffineFit whole = fit_affine(points);  // the guards, over the whole series
  const auto shares_with = [&](const AffineFit& basis) {
    std::vector<double> out;
    for (const TimedPoint& p : points) out.push_back(basis.share(p.seconds));
    return out;
  };
  const std::map<double, double> cost = log_cost_per_token(points);
  f.fit_from_auto = !o.fit_from;
  // The first length from which the shares under `basis` reach the threshold and, under the
  // settling rule, the cost per token has settled.
  const auto region_from = [&](const AffineFit& basis) {
    const double from =
        auto_fit_from(shares_by_length(points, shares_with(basis)), basis.marginal_s > 0);
    return o.rules != FitRules::share_only ? settled_from(cost, from, o.rules == FitRules::region)
                                           : from;
  };
  const std::map<double, double> distinct = shares_by_length(points, shares_with(whole));
  if (o.fit_from) {
    f.basis = FitBasis::given;
    f.fit_from = *o.fit_from;
    f.share_basis = f.fit_from > 0 ? fit_affine(points, f.fit_from) : whole;
  } else {
    // The fixed cost that decides the shares is the one seen where the read has settled: a read
    // whose cost per token is higher at short lengths (prefetch ramping up, a split that does
    // not pay yet) has a larger fixed cost there than the line through every point says. Start
    // from that line, then take t0 from the region its shares select, and move the region up
    // while the region's own t0 says so (never down, so this ends).
    // A region whose cost per token rises is moved up to where it has settled.
    f.share_basis = whole;
    f.fit_from = region_from(whole);
    for (std::size_t step = 0; step < points.size(); ++step) {
      const AffineFit region = fit_affine(points, f.fit_from);
      const double next = region_from(region);
      if (!(next > f.fit_from)) {
        if (f.fit_from > shares_by_length(points, shares_with(whole)).begin()->first)
          f.share_basis = region;
        break;
      }
      f.fit_from = next;
    }
    // A region is at least kRegionLengths lengths spanning kRegionSpan: a shorter tail is
    // widened down, its t0 then the widened region's.
    f.tried_from = f.fit_from;
    if (o.rules == FitRules::region && !is_region(lengths_from(distinct, f.fit_from))) {
      f.fit_from = widened_from(distinct, f.fit_from);
      f.basis = f.fit_from > distinct.begin()->first ? FitBasis::widened : FitBasis::whole_grid;
      f.share_basis = f.fit_from > distinct.begin()->first ? fit_affine(points, f.fit_from) : whole;
    }
  }
  if (f.basis == FitBasis::given || f.basis == FitBasis::region) f.tried_from = f.fit_from;
  {
    const std::vector<double> tried = lengths_from(distinct, f.tried_from);
    f.tried_lengths = int(tried.size());
    f.tried_span = span_of(tried);
    const std::vector<double> region = lengths_from(distinct, f.fit_from);
    f.region_span = span_of(region);
  }
  f.raw_shares = shares_with(f.share_basis);
  f.shares = f.raw_shares;
  // From version 7 on a share is what its name says, a fraction; the raw value stays beside it.
  if (o.rules == FitRules::region)
    for (double& s : f.shares) s = std::clamp(s, 0.0, 1.0);
  const std::map<double, double> by_length = shares_by_length(points, f.shares);
  const bool positive = f.share_basis.marginal_s > 0;
  f.power = fit_power_law(points, f.fit_from);
  f.affine = fit_affine(points, f.fit_from);
  const auto start = by_length.lower_bound(f.fit_from);
  f.region_lengths = int(std::distance(start, by_length.end()));
  const Rise rise = rise_from(cost, f.fit_from);
  f.cost_rise = rise.ratio;
  f.cost_rise_length = rise.length;
  f.rules = o.rules;
  const bool region_rule = o.rules == FitRules::region;
  const FitResult& power = f.power;
  const bool unresolved = !growth_resolved(f.affine, power);

  if (!positive) {
    f.shortfall = Shortfall::not_growing;
    f.asymptote_reason = "the marginal cost per token is not positive (b = " +
                         format_number(f.share_basis.marginal_s) +
                         " s/token): the time does not grow with the length";
  } else if (region_rule && !is_region(lengths_from(distinct, f.fit_from))) {
    f.shortfall = Shortfall::small_region;
    f.asymptote_reason = strprintf(
        "%s %s; a region needs %d lengths spanning %gx for an exponent to gate on",
        f.basis == FitBasis::given ? "the given region," : "no tail is a region; the whole grid,",
        region_words(f.fit_from, f.region_lengths, f.region_span).c_str(), kRegionLengths,
        kRegionSpan);
  } else if (region_rule && f.fit_from < f.tried_from) {
    f.shortfall = Shortfall::small_region;
    f.asymptote_reason = strprintf(
        "the lengths where the read dominates, %s, are too few for a region (%d spanning %gx); "
        "fitted instead over %s, where the fixed cost weighs more",
        region_words(f.tried_from, f.tried_lengths, f.tried_span).c_str(), kRegionLengths,
        kRegionSpan, region_words(f.fit_from, f.region_lengths, f.region_span).c_str());
  } else if (start->second < kAsymptoteShare) {
    f.shortfall = Shortfall::fixed_cost;
    f.asymptote_reason = strprintf(
        "at L=%.0f, the shortest fitted length, %.0f%% of the time is length-dependent, under "
        "%.0f%%: the fixed cost per call still weighs",
        start->first, 100 * start->second, 100 * kAsymptoteShare);
  } else if (o.rules != FitRules::share_only && rise.ratio > 1 + kSettleRise) {
    f.shortfall = Shortfall::unsettled;
    const double first = std::exp(cost.lower_bound(f.fit_from)->second);
    f.asymptote_reason = strprintf(
        "the cost per token rises from %.3g ns at L=%.0f, the shortest fitted length, to %.3g "
        "ns at L=%.0f (+%.0f%%, over %.0f%%): the read is still changing along the lengths (a "
        "copy outgrowing a cache) or grows faster than linearly",
        first * 1e9, start->first, first * rise.ratio * 1e9, rise.length, 100 * (rise.ratio - 1),
        100 * kSettleRise);
  } else if (f.region_lengths < kAsymptoteLengths) {
    f.shortfall = Shortfall::small_region;
    f.asymptote_reason = strprintf(
        "%d fitted lengths with at least %.0f%% of the time length-dependent; %d "
        "are needed for an exponent to gate on",
        f.region_lengths, 100 * kAsymptoteShare, kAsymptoteLengths);
  } else if (region_rule && unresolved) {
    f.shortfall = Shortfall::unresolved;
    f.asymptote_reason = strprintf(
        "the growth with the length is not resolved: the 95%% CIs of the exponent (%s) and "
        "of the marginal cost must lie above zero; the points are noise around the line",
        power.ci95_low ? strprintf("%.3g .. %.3g", *power.ci95_low, *power.ci95_high).c_str()
                       : "none");
  } else {
    f.asymptote_reached = true;
    f.shortfall = Shortfall::none;
    f.asymptote_reason =
        strprintf("from L=%.0f on at least %.0f%% of the time is length-dependent, over %d lengths",
                  start->first, 100 * std::min(start->second, 1.0), f.region_lengths);
    if (region_rule) f.asymptote_reason += strprintf(" spanning %.3gx", f.region_span);
    if (o.rules != FitRules::share_only)
      f.asymptote_reason += rise.ratio >= 1.005
                                ? strprintf(", the cost per token at most %.0f%% above the first's",
                                            100 * (rise.ratio - 1))
                                : ", the cost per token nowhere above the first's";
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
