#include "report/json_report.hpp"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/interrupt.hpp"
#include "measure/backend_opening.hpp"
#include "version.hpp"

namespace readbench {

namespace {

Json gpu_to_json(const GpuInfo& g) {
  return {{"index", g.index},
          {"name", g.name},
          {"compute_capability",
           std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor)},
          {"sm_count", g.sm_count},
          {"l2_bytes", g.l2_bytes},
          {"memory_bytes", g.memory_bytes},
          {"sm_clock_mhz", g.sm_clock_mhz},
          {"memory_clock_mhz", g.memory_clock_mhz},
          {"memory_bus_bits", g.memory_bus_bits},
          {"driver_version", g.driver_version},
          {"runtime_version", g.runtime_version}};
}

Json config_to_json(const SweepConfig& c) {
  Json paths = Json::array();
  for (const Path& p : c.paths) paths.push_back(to_string(p));
  Json plugins = Json::array();
  for (const auto& p : c.plugins)
    plugins.push_back({{"name", p->name()},
                       {"path", p->path_name()},
                       {"file", p->file()},
                       {"backend", p->backend()},
                       {"abi_version", p->abi_version()},
                       {"layout", to_string(p->layout())}});
  const Workload kv = c.workload(0);
  return {{"backend", to_string(c.backend)},
          {"paths", paths},
          {"lengths", c.auto_lengths ? Json("auto") : Json(c.lengths)},
          {"max_length", c.max_length},
          {"sweep_budget_s", c.sweep_budget_s},
          {"rounds", c.rounds ? Json(*c.rounds) : Json("auto")},
          {"batch", c.shape.batch},
          {"q_heads", c.shape.q_heads},
          {"kv_heads", c.shape.kv_heads},
          {"head_dim", c.shape.head_dim},
          {"block_size", c.shape.block_size},
          {"dtype", to_string(c.dtype)},
          {"kv_dtype", to_string(kv.kv_dtype())},
          {"kv_scale", kv.kv_scale()},
          {"kv_scale_granularity", kv.kv_scale() == 1.0f ? "none" : "per-tensor"},
          {"cache", to_string(c.sampling.cache)},
          {"noise_target", c.sampling.noise_target},
          {"min_samples", c.sampling.min_samples},
          {"budget_s", c.sampling.budget_s},
          {"max_samples", c.sampling.max_samples},
          {"min_time_s", c.sampling.min_time_s},
          {"warmup_s", c.sampling.warmup_s},
          {"statistic", to_string(c.statistic)},
          {"fit_from", c.fit_from ? Json(*c.fit_from) : Json("auto")},
          {"threads", c.threads},
          {"device", c.devices.empty() ? 0 : c.devices.front()},
          {"devices", c.devices},
          {"plugins", plugins},
          {"seed", c.seed}};
}

Json point_to_json(const PointResult& p, std::optional<double> share) {
  const SampleSummary& s = p.measurement.per_call;
  return {{"length", p.length},
          {"samples", s.count},
          {"calls_per_sample", p.measurement.calls_per_sample},
          {"replicas", p.replicas},
          {"rounds", p.measurement.rounds},
          {"converged", p.measurement.converged},
          {"noise", s.noise},
          {"min_s", s.min},
          {"median_s", s.median},
          {"mean_s", s.mean},
          {"stddev_s", s.stddev},
          {"max_s", s.max},
          {"bytes", p.bytes.total()},
          {"kv_bytes", p.bytes.kv_read},
          {"gbps", p.gbps},
          {"ceiling_fraction", p.ceiling_fraction},
          {"disturbed", p.measurement.disturbed},
          {"contended", p.measurement.contended},
          {"length_dependent_share", number_or_null(share)}};
}

Json load_to_json(const std::optional<LoadSample>& l) {
  if (!l) return nullptr;
  return {
      {"one_minute", l->one_minute}, {"five_minutes", l->five_minutes}, {"runnable", l->runnable}};
}

Json quality_to_json(const Quality& q) {
  return {{"verdict", to_string(q.contended ? QualityVerdict::contended : QualityVerdict::clean)},
          {"reasons", q.reasons},
          {"load_before", load_to_json(q.load_before)},
          {"load_after", load_to_json(q.load_after)}};
}

Json check_to_json(const CheckResult& c) {
  Json j = {{"length", c.length},
            {"batch", c.batch},
            {"dtype", to_string(c.dtype)},
            {"kv_dtype", to_string(c.kv_dtype)},
            {"error", c.error},
            {"tolerance", c.tolerance},
            {"passed", c.passed}};
  if (!c.failure.empty()) j["failure"] = c.failure;
  return j;
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json report_header(int signal, const HostInfo& host, const std::string& created_at,
                   const std::string& plugin_exit) {
  Json report;
  report["schema_version"] = kSchemaVersion;
  report["complete"] = signal == 0 && plugin_exit.empty();
  if (signal != 0) report["signal"] = signal_name(signal);
  if (!plugin_exit.empty()) report["plugin_exit"] = plugin_exit;
  report["tool"] = {{"name", "readbench"}, {"version", kVersion}, {"git_commit", kGitCommit}};
  report["created_at"] = created_at;
  report["machine"] = {
      {"hostname", host.hostname},
      {"os", host.os},
      {"cpu", {{"model", host.cpu_model}, {"arch", host.arch}, {"cores", host.cpu_cores}}},
      {"memory_bytes", host.memory_bytes}};
  return report;
}

Json build_report(const RunResult& run, const HostInfo& host, const std::string& created_at) {
  Json gpus = Json::array(), bandwidths = Json::array(), backends = Json::array();
  for (const BackendResult& b : run.backends) {
    if (b.gpu) gpus.push_back(gpu_to_json(*b.gpu));
    Json entry = {{"name", b.name}, {"status", to_string(b.status)}, {"reason", b.reason}};
    if (b.status == Status::ok) {
      entry["timer_resolution_s"] = b.timer_resolution_s;
      entry["cache_bytes"] = b.cache_bytes;
      if (b.details.threads > 0) entry["threads"] = b.details.threads;
      if (!b.details.kernels.empty()) entry["kernels"] = b.details.kernels;
      if (!b.details.threads_from.empty()) entry["threads_from"] = b.details.threads_from;
      if (!b.details.wait_policy.empty()) entry["wait_policy"] = b.details.wait_policy;
      if (!b.details.monitor.empty()) entry["monitor"] = b.details.monitor;
      if (!b.details.cache_from.empty()) entry["cache_bytes_from"] = b.details.cache_from;
      if (!b.details.cold_flush.empty()) entry["cold_flush"] = b.details.cold_flush;
      if (!b.details.launch.empty()) entry["launch"] = b.details.launch;
      const auto runs = [](const std::vector<Bandwidths>& v, double Bandwidths::*field) {
        Json out = Json::array();
        for (const Bandwidths& x : v) out.push_back(x.*field);
        return out;
      };
      if (b.bandwidths.read_gbps > 0)  // not measured when a signal stopped the run first
        bandwidths.push_back(
            {{"backend", b.name},
             {"read_gbps", b.bandwidths.read_gbps},
             {"copy_gbps", b.bandwidths.copy_gbps},
             {"buffer_bytes", b.bandwidths.buffer_bytes},
             {"read_gbps_before", runs(b.ceilings_before, &Bandwidths::read_gbps)},
             {"read_gbps_between", runs(b.ceilings_between, &Bandwidths::read_gbps)},
             {"read_gbps_after", runs(b.ceilings_after, &Bandwidths::read_gbps)},
             {"copy_gbps_before", runs(b.ceilings_before, &Bandwidths::copy_gbps)},
             {"copy_gbps_between", runs(b.ceilings_between, &Bandwidths::copy_gbps)},
             {"copy_gbps_after", runs(b.ceilings_after, &Bandwidths::copy_gbps)}});
    }
    backends.push_back(entry);
  }

  Json results = Json::array();
  for (const PathResult& r : run.results) {
    Json points = Json::array(), checks = Json::array();
    for (std::size_t i = 0; i < r.points.size(); ++i)
      points.push_back(point_to_json(
          r.points[i], r.fit ? std::optional<double>(r.fit->shares[i]) : std::nullopt));
    for (const auto& c : r.checks) checks.push_back(check_to_json(c));
    Json j = {{"backend", r.backend},
              {"path", to_string(r.path)},
              {"status", to_string(r.status)},
              {"reason", r.reason},
              {"checks", checks},
              {"points", points},
              {"grid", {{"stop", to_string(r.grid_stop)}, {"reason", r.grid_reason}}},
              {"fit", r.fit ? fit_to_json(*r.fit) : Json(nullptr)}};
    if (!r.fit)
      j["fit_error"] = r.fit_error.empty() ? std::string("no points were timed") : r.fit_error;
    if (!r.note.empty()) j["note"] = r.note;
    results.push_back(j);
  }

  Json speedups = Json::array();
  for (const Speedup& s : run.speedups)
    speedups.push_back({{"backend", s.backend},
                        {"length", s.length},
                        {"gather_s", s.gather_s},
                        {"fused_s", s.fused_s},
                        {"speedup", s.speedup},
                        {"clean", s.clean}});

  Json report = report_header(run.signal, host, created_at, run.plugin_exit);
  report["machine"]["gpus"] = gpus;
  report["machine"]["bandwidths"] = bandwidths;
  report["config"] = config_to_json(run.config);
  report["quality"] = quality_to_json(run.quality);
  report["backends"] = backends;
  report["results"] = results;
  report["speedups"] = speedups;
  // Only a run over several CUDA devices compares them.
  if (std::any_of(run.backends.begin(), run.backends.end(),
                  [](const BackendResult& b) { return is_device_backend(b.name); })) {
    Json slow = Json::array();
    for (const SlowDevice& d : run.slow_devices)
      slow.push_back({{"backend", d.backend},
                      {"fastest", d.fastest},
                      {"path", to_string(d.path)},
                      {"length", d.length},
                      {"ratio", d.ratio}});
    report["slow_devices"] = slow;
  }
  return report;
}

}  // namespace readbench
