#include "measure/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/errors.hpp"
#include "measure/verify.hpp"

namespace readbench {

namespace {

std::vector<std::string> backends_for(BackendChoice c) {
  switch (c) {
    case BackendChoice::cpu: return {"cpu"};
    case BackendChoice::cuda: return {"cuda"};
    case BackendChoice::all:
    case BackendChoice::auto_: return {"cpu", "cuda"};
  }
  return {};
}

std::unique_ptr<Backend> make_backend(const std::string& name, const SweepConfig& c) {
  return name == "cpu" ? make_cpu_backend(c.threads) : make_cuda_backend(c.device);
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void run_backend(Backend& backend, const SweepConfig& c, BackendResult& info,
                 std::vector<PathResult>& results, const Progress& progress) {
  const std::string name(backend.name());
  auto say = [&](const std::string& s) {
    if (progress) progress(name + ": " + s);
  };
  say("measuring memory ceilings");
  info.bandwidths = backend.measure_bandwidths();

  std::vector<PathResult> mine;
  for (Path p : c.paths) {
    PathResult r;
    r.backend = name;
    r.path = p;
    mine.push_back(r);
  }
  Workload w{c.shape, c.dtype, 0, 1, c.seed ^ 0x5eedc0de};  // fresh inputs for the checks
  for (std::int64_t len : verification_lengths(c)) {
    say("verifying at L=" + std::to_string(len));
    w.length = len;
    const auto checks = check_paths(backend, w, c.paths);
    for (std::size_t i = 0; i < checks.size(); ++i) {
      mine[i].checks.push_back(checks[i]);
      if (!checks[i].passed && mine[i].status == Status::ok) {
        mine[i].status = Status::failed;
        mine[i].reason = "verification failed at L=" + std::to_string(len) + ": error " +
                         fmt(checks[i].error) + " > tolerance " + fmt(checks[i].tolerance);
      }
    }
  }

  for (std::int64_t len : c.lengths) {
    Workload tw{c.shape, c.dtype, len, 1, c.seed};
    tw.replicas = replicas_for(tw.kv_bytes_per_call(), backend.cache_bytes(),
                               backend.timer_resolution_s(), info.bandwidths.read_gbps);
    bool prepared = false;
    for (PathResult& r : mine) {
      if (r.status != Status::ok) continue;
      if (!prepared) {
        backend.prepare(make_host_workload(tw));
        prepared = true;
      }
      say("timing " + std::string(to_string(r.path)) + " at L=" + std::to_string(len));
      PointResult pt;
      pt.length = len;
      pt.replicas = tw.replicas;
      pt.measurement = measure_point(backend, r.path, c.sampling);
      pt.bytes = bytes_per_call(tw, r.path);
      pt.seconds = c.statistic == Statistic::min ? pt.measurement.per_call.min
                                                 : pt.measurement.per_call.median;
      pt.gbps = double(pt.bytes.total()) / pt.seconds / 1e9;
      pt.ceiling_fraction = pt.gbps / info.bandwidths.read_gbps;
      r.points.push_back(pt);
    }
  }

  for (PathResult& r : mine) {
    if (r.status != Status::ok) continue;
    std::vector<TimedPoint> pts;
    for (const auto& p : r.points) pts.push_back({double(p.length), p.seconds});
    try {
      r.fit = fit_power_law(pts, c.fit_from);
    } catch (const FitError& e) {
      r.fit_error = e.what();
    }
  }
  for (auto& r : mine) results.push_back(std::move(r));
}

}  // namespace

int replicas_for(std::int64_t bytes_per_call, std::int64_t cache_bytes, double resolution_s,
                 double read_gbps) {
  if (bytes_per_call <= 0) return 1;
  // Enough replicas that cycling through them evicts each before its reuse...
  const double evict = std::ceil(3.0 * double(cache_bytes) / double(bytes_per_call));
  // ...or, if fewer, twice the batch a sample would need were calls as fast as the ceiling.
  const double floor_s = double(bytes_per_call) / std::max(read_gbps, 1.0) / 1e9;
  const double batch = std::ceil(2.0 * 1000.0 * resolution_s / floor_s);
  return int(std::clamp(std::min(evict, batch), 1.0, 256.0));
}

void validate(const SweepConfig& c) {
  c.shape.validate();
  validate(c.sampling);
  if (c.paths.empty()) throw InputError("--path selects no path");
  if (c.lengths.empty()) throw InputError("--lengths is empty");
  if (c.threads < 0) throw InputError("--threads must be >= 0, got " + std::to_string(c.threads));
  if (c.device < 0) throw InputError("--device must be >= 0, got " + std::to_string(c.device));
}

RunResult run_sweep(const SweepConfig& c, const Progress& progress) {
  validate(c);
  RunResult run;
  run.config = c;
  for (const std::string& name : backends_for(c.backend)) {
    BackendResult info;
    info.name = name;
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(name, c);
    } catch (const BackendUnavailable& e) {
      if (c.backend == BackendChoice::cuda || c.backend == BackendChoice::cpu)
        throw InputError("--backend " + name + " cannot run: " + e.what());
      info.status = Status::unavailable;
      info.reason = e.what();
      for (Path p : c.paths) {
        PathResult r;
        r.backend = name;
        r.path = p;
        r.status = Status::unavailable;
        r.reason = info.reason;
        run.results.push_back(r);
      }
      run.backends.push_back(info);
      continue;
    }
    info.timer_resolution_s = backend->timer_resolution_s();
    info.cache_bytes = backend->cache_bytes();
    info.gpu = backend->gpu_info();
    run_backend(*backend, c, info, run.results, progress);
    run.backends.push_back(info);
  }

  std::map<std::pair<std::string, std::int64_t>, std::pair<double, double>> times;
  for (const PathResult& r : run.results)
    for (const PointResult& p : r.points) {
      auto& [g, f] = times[{r.backend, p.length}];
      (r.path == Path::gather ? g : f) = p.seconds;
    }
  for (const auto& [key, t] : times)
    if (t.first > 0 && t.second > 0)
      run.speedups.push_back({key.first, key.second, t.first, t.second, speedup_of(t.first, t.second)});
  return run;
}

}  // namespace readbench
