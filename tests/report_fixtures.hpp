#pragma once
// A synthetic run and its JSON report (no timing), for the tests of everything that writes or
// reads reports.
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/asymptote_fit.hpp"
#include "measure/results.hpp"
#include "report/json_report.hpp"
#include "report/machine_info.hpp"
#include "report/report_input.hpp"

namespace readbench::test {

inline PointResult point(std::int64_t length, double seconds) {
  PointResult p;
  p.length = length;
  p.replicas = 4;
  p.measurement.calls_per_sample = 8;
  p.measurement.converged = true;
  p.measurement.per_call = {5,           seconds, 1.5 * seconds, 1.6 * seconds, 0.1 * seconds,
                            3 * seconds, 0.01};
  Workload w{Shape{}, DType::bf16, length, 1, 0, std::nullopt};
  p.bytes = bytes_per_call(w, Path::fused);
  p.seconds = seconds;
  p.gbps = double(p.bytes.total()) / seconds / 1e9;
  p.ceiling_fraction = p.gbps / 20.0;
  return p;
}

// A path timed at `pts` (length, seconds), fitted from `fit_from` (empty: auto; by default
// every point, so a fixture's fit has exactly the points it lists).
inline PathResult timed_path(Path path, std::vector<std::pair<std::int64_t, double>> pts,
                             std::optional<double> fit_from = 0.0) {
  PathResult r;
  r.backend = "cpu";
  r.path = path;
  r.checks.push_back({path, 16, 1, DType::bf16, DType::bf16, 1.5e-3, 1e-2, true, {}});
  std::vector<TimedPoint> fit_points;
  for (const auto& [len, s] : pts) {
    r.points.push_back(point(len, s));
    fit_points.push_back({double(len), s});
  }
  r.fit = fit_read(fit_points, {fit_from, {}, {}});
  r.grid_stop = GridStop::explicit_lengths;
  return r;
}

// A cpu backend with a two-point gather (no CI) and a three-point fused (with a CI), and an
// unavailable cuda backend.
inline RunResult synthetic_run() {
  RunResult run;
  run.config.backend = BackendChoice::auto_;
  run.config.auto_lengths = false;
  run.config.lengths = {16, 64, 256};
  BackendResult cpu;
  cpu.name = "cpu";
  cpu.bandwidths = {20.0, 25.0, 1 << 30};
  cpu.timer_resolution_s = 2e-8;
  cpu.cache_bytes = 32 << 20;
  BackendResult cuda;
  cuda.name = "cuda";
  cuda.status = Status::unavailable;
  cuda.reason = "no CUDA device";
  run.backends = {cpu, cuda};

  run.results.push_back(timed_path(Path::gather, {{16, 2e-6}, {64, 8e-6}}));
  run.results.push_back(timed_path(Path::fused, {{16, 1e-6}, {64, 3e-6}, {256, 9e-6}}));
  for (const Path& p : {Path::gather, Path::fused}) {
    PathResult r;
    r.backend = "cuda";
    r.path = p;
    r.status = Status::unavailable;
    r.reason = cuda.reason;
    run.results.push_back(r);
  }
  run.speedups.push_back({"cpu", 16, 2e-6, 1e-6, 2.0});
  run.speedups.push_back({"cpu", 64, 8e-6, 3e-6, 8.0 / 3.0});
  return run;
}

// The run as it would have been fitted on `s` (the fixture's medians are 1.5x its mins).
inline RunResult with_statistic(RunResult run, Statistic s) {
  run.config.statistic = s;
  for (PathResult& r : run.results) {
    if (!r.fit) continue;
    std::vector<TimedPoint> pts;
    for (PointResult& p : r.points) {
      p.seconds = s == Statistic::min ? p.measurement.per_call.min : p.measurement.per_call.median;
      p.gbps = double(p.bytes.total()) / p.seconds / 1e9;
      pts.push_back({double(p.length), p.seconds});
    }
    const std::optional<double> from =
        r.fit->fit_from_auto ? std::nullopt : std::optional(r.fit->fit_from);
    r.fit = fit_read(pts, {from, {}, {}});
  }
  return run;
}

inline HostInfo synthetic_host() {
  HostInfo h;
  h.hostname = "testhost";
  h.os = "Linux 6.1 x86_64";
  h.cpu_model = "Test CPU";
  h.cpu_cores = 2;
  h.memory_bytes = std::int64_t(8) << 30;
  return h;
}

inline Json synthetic_report() {
  return build_report(synthetic_run(), synthetic_host(), "2026-01-02T03:04:05Z");
}

// A synthetic run's report as report_input reads it back.
inline Report report_of(const RunResult& run, const std::string& host = "testhost",
                        const std::string& source = "r.json") {
  HostInfo h = synthetic_host();
  h.hostname = host;
  return parse_report(build_report(run, h, "2026-01-02T03:04:05Z").dump(), source);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Cells of a CSV line without quoting; a trailing comma ends in an empty cell.
inline std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace readbench::test
