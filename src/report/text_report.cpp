#include "report/text_report.hpp"

#include "report/format.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace readbench {

std::string format_fit(const FitResult& f) {
  std::ostringstream os;
  os << strprintf("  exponent p = %.3f", f.exponent);
  if (f.ci95_low && f.ci95_high)
    os << strprintf(" +/- %.3f (95%% CI %.3f .. %.3f)", (*f.ci95_high - *f.ci95_low) / 2,
                    *f.ci95_low, *f.ci95_high);
  else
    os << " (no CI: " << f.ci95_reason << ")";
  os << "  regime: " << to_string(f.regime) << '\n';
  os << "  per-token cost " << format_seconds(f.per_token_s)
     << strprintf(" at L=%.0f", f.longest_length)
     << strprintf("; r2 = %.4f; c = %.3g s; %d points", f.r2, f.constant, f.n_points);
  if (f.fit_from > 0) os << strprintf(" with L >= %.0f", f.fit_from);
  os << "\n  segments:";
  for (const Segment& s : f.segments)
    os << strprintf(" %.0f->%.0f: %.2f", s.from_length, s.to_length, s.exponent);
  os << '\n';
  if (!f.asymptote_reached)
    os << strprintf(
        "  warning: not at the asymptote: the last segment's exponent %.2f differs from p = "
        "%.2f by more than %.2f, so p describes the fixed overhead as much as the algorithm; "
        "extend the lengths or raise --fit-from\n",
        f.segments.back().exponent, f.exponent, f.asymptote_tolerance);
  return os.str();
}

std::string format_run(const RunResult& run) {
  const SweepConfig& c = run.config;
  std::ostringstream os;
  os << strprintf("readbench: %s, B=%d Hq=%d Hkv=%d D=%d S=%d, %s cache, statistic %s\n",
                  std::string(to_string(c.dtype)).c_str(), c.shape.batch, c.shape.q_heads,
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
    os << strprintf(": read ceiling %.1f GB/s, copy %.1f GB/s (over %.0f MiB)\n",
                    b.bandwidths.read_gbps, b.bandwidths.copy_gbps,
                    double(b.bandwidths.buffer_bytes) / (1 << 20));
  }
  os << strprintf("\n%-6s %-7s %9s %11s %11s %9s %8s %8s\n", "backend", "path", "L", "time",
                  "median", "GB/s", "ceiling", "samples");
  for (const PathResult& r : run.results) {
    if (r.status != Status::ok) {
      os << strprintf("%-6s %-7s ", r.backend.c_str(), std::string(to_string(r.path)).c_str())
         << to_string(r.status) << ": " << r.reason << '\n';
      continue;
    }
    for (const PointResult& p : r.points)
      os << strprintf("%-7s %-7s %9lld %11s %11s %9.1f %7.0f%% %8d%s\n", r.backend.c_str(),
                      std::string(to_string(r.path)).c_str(), (long long)p.length,
                      format_seconds(p.seconds).c_str(),
                      format_seconds(p.measurement.per_call.median).c_str(), p.gbps,
                      100 * p.ceiling_fraction, p.measurement.per_call.count,
                      p.measurement.converged ? "" : " (noisy)");
  }
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
    if (r.fit)
      os << format_fit(*r.fit);
    else
      os << "  no fit: " << r.fit_error << '\n';
  }
  if (!run.speedups.empty()) {
    os << "\nspeedup of fused over gather (gather time / fused time):\n";
    for (const Speedup& s : run.speedups)
      os << strprintf("  %-6s L=%-8lld %.2fx\n", s.backend.c_str(), (long long)s.length, s.speedup);
  }
  return os.str();
}

}  // namespace readbench
