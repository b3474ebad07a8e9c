#include "report/text_report.hpp"

#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace readbench {

namespace {

std::string with_ci(double v, const std::optional<double>& low, const std::optional<double>& high) {
  std::string out = format_seconds(v);
  if (low && high) out += " [" + format_seconds(*low) + ", " + format_seconds(*high) + "]";
  return out;
}

// What to do about a fit not at its asymptote, by its cause: each piece of advice moves the
// fit toward a region it can be judged on.
std::string advice(const ReadFit& r) {
  switch (r.shortfall) {
    case Shortfall::none:
      return "";
    case Shortfall::not_growing:
      return "time longer lengths (--lengths auto, --max-length) until the time grows with them";
    case Shortfall::small_region:
      return r.basis == FitBasis::given
                 ? "lower --fit-from or add lengths above it, so the region holds 4 spanning 4x"
                 : "extend the lengths (--lengths auto, --max-length) so that 4 spanning 4x lie "
                   "where the read dominates";
    case Shortfall::fixed_cost:
      return r.basis == FitBasis::given
                 ? "raise --fit-from past the lengths where the fixed cost weighs, keeping 4 "
                   "lengths spanning 4x above it, or extend the lengths (--max-length)"
                 : "extend the lengths (--lengths auto, --max-length)";
    case Shortfall::unsettled:
      return "extend the lengths past the change (--max-length), or read the segments: the "
             "exponent describes the change, not the read";
    case Shortfall::unresolved:
      return "sample longer (--budget, --rounds) on a quiet machine, or extend the lengths";
  }
  return "";
}

// A share as the tables print it: "0.93", or "1.00*" where it was clamped (the line does not
// describe the point).
std::string share_cell(const ReadFit& r, std::size_t i) {
  return strprintf("%.2f", r.shares[i]) + (r.share_clamped(i) ? "*" : "");
}

}  // namespace

std::string format_fit(const ReadFit& r, const std::vector<TimedPoint>& points) {
  const FitResult& f = r.power;
  const AffineFit& a = r.affine;
  std::ostringstream os;
  os << strprintf("  exponent p = %.3f", f.exponent);
  if (f.ci95_low && f.ci95_high)
    os << strprintf(" +/- %.3f (95%% CI %.3f .. %.3f)", (*f.ci95_high - *f.ci95_low) / 2,
                    *f.ci95_low, *f.ci95_high);
  else
    os << " (no CI: " << f.ci95_reason << ")";
  os << "  regime: " << to_string(f.regime) << '\n';
  os << "  fitted over " << f.n_points << " points";
  if (r.fit_from > 0) os << " with L >= " << format_number(r.fit_from);
  if (r.basis == FitBasis::whole_grid || r.basis == FitBasis::widened)
    os << strprintf(" (--fit-from auto: %s; the rule's region, L >= %s, has %d length%s)",
                    r.basis == FitBasis::whole_grid ? "the whole grid" : "widened",
                    format_number(r.tried_from).c_str(), r.tried_lengths,
                    r.tried_lengths == 1 ? "" : "s");
  else
    os << (r.fit_from_auto ? " (--fit-from auto)" : "");
  os << strprintf(", spanning %.3gx", r.region_span) << '\n';
  os << "  fixed cost " << format_fixed_cost(a) << "; marginal cost "
     << with_ci(a.marginal_s, a.marginal_ci95_low, a.marginal_ci95_high) << " per token";
  if (r.effective_gbps) {
    // The fit's GB/s counts K/V bytes alone: the table's counts every byte a call moves.
    os << strprintf(" = %.1f GB/s of K/V bytes", *r.effective_gbps);
    if (r.ceiling_fraction)
      os << strprintf(", %.0f%% of the read ceiling%s", 100 * *r.ceiling_fraction,
                      *r.ceiling_fraction > 1 ? " (above it: caches served part of the K/V, or "
                                                "the ceiling was measured while the machine was "
                                                "busy)"
                                              : "");
  } else if (!(a.marginal_s > 0)) {
    os << " (not positive: the time does not grow with the length)";
  }
  os << '\n';
  os << "  per-token cost " << format_seconds(f.per_token_s)
     << strprintf(" at L=%.0f; r2 = %.4f; c = %.3g s", f.longest_length, f.r2, f.constant) << '\n';
  os << "  length-dependent share (t - t0)/t:";
  bool clamped = false;
  for (std::size_t i = 0; i < points.size() && i < r.shares.size(); ++i) {
    os << strprintf(" %.0f: ", points[i].length) << share_cell(r, i);
    clamped = clamped || r.share_clamped(i);
  }
  if (clamped)
    os << "\n    * clamped into [0, 1]: the line t0 + b*L does not describe that point (t0 "
       << (r.share_basis.fixed_s < 0 ? "below zero" : "above its time") << ")";
  os << "\n  segments:";
  for (const Segment& s : f.segments)
    os << strprintf(" %.0f->%.0f: %.2f", s.from_length, s.to_length, s.exponent);
  os << '\n';
  if (r.asymptote_reached)
    os << "  asymptote reached: " << r.asymptote_reason << '\n';
  else
    os << "  warning: not at the asymptote: " << r.asymptote_reason
       << "; p is not the read's alone: " << advice(r) << '\n';
  return os.str();
}

std::string format_run(const RunResult& run) {
  const SweepConfig& c = run.config;
  std::ostringstream os;
  os << strprintf("readbench: %s, B=%d Hq=%d Hkv=%d D=%d S=%d, %s cache, statistic %s\n",
                  dtypes_label(c.workload(0)).c_str(), c.shape.batch, c.shape.q_heads,
                  c.shape.kv_heads, c.shape.head_dim, c.shape.block_size,
                  std::string(to_string(c.sampling.cache)).c_str(),
                  std::string(to_string(c.statistic)).c_str());
  for (const BackendResult& b : run.backends) {
    if (b.status != Status::ok) {
      os << b.name << ": " << to_string(b.status) << " (" << b.reason << ")\n";
      continue;
    }
    os << b.name;
    if (b.gpu) os << " [" << b.gpu->name << "]";
    if (!(b.bandwidths.read_gbps > 0)) {
      os << ": stopped before its read ceiling was measured\n";
      continue;
    }
    os << strprintf(": read ceiling %.1f GB/s, copy %.1f GB/s (over %.0f MiB",
                    b.bandwidths.read_gbps, b.bandwidths.copy_gbps,
                    double(b.bandwidths.buffer_bytes) / (1 << 20));
    double lo = b.bandwidths.read_gbps;
    std::size_t n = 0;
    for (const auto* runs : {&b.ceilings_before, &b.ceilings_between, &b.ceilings_after}) {
      for (const Bandwidths& x : *runs) lo = std::min(lo, x.read_gbps);
      n += runs->size();
    }
    if (n > 1) os << strprintf("; best of %zu, read %.1f-%.1f GB/s", n, lo, b.bandwidths.read_gbps);
    os << ")";
    // The sampling rounds its points got (fewer than asked where the budget or a busy machine
    // stopped them).
    int fewest = 0, most = 0;
    bool disturbed = false;
    for (const PathResult& r : run.results)
      if (r.backend == b.name)
        for (const PointResult& p : r.points) {
          fewest = fewest == 0 ? p.measurement.rounds : std::min(fewest, p.measurement.rounds);
          most = std::max(most, p.measurement.rounds);
          disturbed = disturbed || p.measurement.contended;
        }
    if (most > 0)
      os << (fewest == most ? strprintf(", points sampled in %d round%s", most, most > 1 ? "s" : "")
                            : strprintf(", points sampled in %d-%d rounds", fewest, most));
    const int asked = c.rounds_on(b.name);
    if (most > 0 && fewest < asked)
      os << strprintf(" of %d asked (", asked)
         << (disturbed ? "later rounds not taken: points kept disturbed samples, the machine was "
                         "busy"
                       : "a later round would have ended past --sweep-budget, or added no clean "
                         "sample")
         << ")";
    os << "\n";
  }
  // The path column fits the longest name (a plugin's "plugin:NAME").
  int path_width = 7;
  for (const PathResult& r : run.results)
    path_width = std::max(path_width, int(to_string(r.path).size()));
  os << strprintf("\n%-7s %-*s %9s %11s %11s %9s %8s %6s %8s\n", "backend", path_width, "path", "L",
                  "time", "median", "GB/s", "ceiling", "share", "samples");
  bool clamped_share = false, above_ceiling = false;
  for (const PathResult& r : run.results) {
    if (r.status != Status::ok) {
      os << strprintf("%-7s %-*s ", r.backend.c_str(), path_width, to_string(r.path).c_str())
         << to_string(r.status) << ": " << r.reason << '\n';
      continue;
    }
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const PointResult& p = r.points[i];
      const std::string share = r.fit ? share_cell(*r.fit, i) : "-";
      clamped_share = clamped_share || (r.fit && r.fit->share_clamped(i));
      above_ceiling = above_ceiling || p.ceiling_fraction > 1;
      const std::string ceiling =
          strprintf("%.0f%%", 100 * p.ceiling_fraction) + (p.ceiling_fraction > 1 ? "*" : "");
      os << strprintf("%-7s %-*s %9lld %11s %11s %9.1f %8s %6s %8d%s\n", r.backend.c_str(),
                      path_width, to_string(r.path).c_str(), (long long)p.length,
                      format_seconds(p.seconds).c_str(),
                      format_seconds(p.measurement.per_call.median).c_str(), p.gbps,
                      ceiling.c_str(), share.c_str(), p.measurement.per_call.count,
                      p.measurement.contended   ? " (contended)"
                      : p.measurement.converged ? ""
                                                : " (noisy)");
    }
  }
  // What each column counts, said once under the table.
  os << "GB/s: every byte a call moves (K/V, queries, output, block table; gather also its "
        "copy) per second; the fits below count K/V bytes alone\n";
  if (above_ceiling)
    os << "ceiling*: above the measured read ceiling: caches served part of the bytes, or the "
          "ceiling was measured while the machine was busy\n";
  if (clamped_share)
    os << "share*: clamped into [0, 1]: its fit's line t0 + b*L does not describe that point\n";
  const Quality& q = run.quality;
  if (q.contended) {
    os << "\nquality: CONTENDED: the machine's other work is in these numbers:\n";
    for (const std::string& why : q.reasons) os << "  - " << why << '\n';
  } else {
    os << "\nquality: clean (no sample kept whose threads lost their cores; ceilings steady)\n";
  }
  if (q.load_before && q.load_after)
    os << strprintf("load average %.2f before the sweep, %.2f after\n", q.load_before->one_minute,
                    q.load_after->one_minute);
  int points = 0, noisy = 0;
  for (const PathResult& r : run.results)
    for (const PointResult& p : r.points) {
      ++points;
      noisy += p.measurement.converged ? 0 : 1;
    }
  if (noisy > 0)
    os << strprintf(
        "\n%d of %d points spent their time budget before their noise reached the target: their "
        "times, and the fits through them, are less certain (raise --budget or --noise)\n",
        noisy, points);
  for (const PathResult& r : run.results) {
    if (r.status != Status::ok) continue;
    os << '\n' << r.backend << ' ' << to_string(r.path) << ":\n";
    if (!r.note.empty()) os << "  " << r.note << '\n';
    if (r.fit) {
      std::vector<TimedPoint> pts;
      for (const PointResult& p : r.points) pts.push_back({double(p.length), p.seconds});
      os << format_fit(*r.fit, pts);
    } else {
      os << "  no fit: " << r.fit_error << '\n';
      // What to do next: a busy machine stops a grid early; a short grid leaves too little.
      bool disturbed = false;
      for (const PointResult& p : r.points) disturbed = disturbed || p.measurement.contended;
      os << "  next: "
         << (disturbed || r.grid_stop == GridStop::contended
                 ? "the machine was busy: wait for it to be quiet (see the load average above) "
                   "and run again, or give --budget more time per point"
                 : "time more lengths: --lengths auto, or an explicit --lengths with at least 4 "
                   "spanning 4x")
         << '\n';
    }
    if (r.grid_stop != GridStop::explicit_lengths && r.grid_stop != GridStop::reached &&
        !r.grid_reason.empty())
      os << "  the grid stopped at its " << to_string(r.grid_stop) << " bound: " << r.grid_reason
         << '\n';
  }
  if (!run.speedups.empty()) {
    os << "\nspeedup of fused over gather (gather time / fused time):\n";
    bool unclean = false;
    for (const Speedup& s : run.speedups) {
      os << strprintf("  %-6s L=%-8lld %.2fx%s\n", s.backend.c_str(), (long long)s.length,
                      s.speedup, s.clean ? "" : " (not clean)");
      unclean = unclean || !s.clean;
    }
    if (unclean)
      os << "  (not clean): a point kept disturbed samples or missed its noise target; the "
            "ratio is not a figure to quote\n";
  }
  for (const SlowDevice& d : run.slow_devices)
    os << strprintf(
        "\n%s is %.1f%% slower than %s at %s L=%lld, beyond both devices' sample spread\n",
        d.backend.c_str(), 100 * (d.ratio - 1), d.fastest.c_str(),
        std::string(to_string(d.path)).c_str(), (long long)d.length);
  return os.str();
}

}  // namespace readbench
