#pragma once
// A readbench report read back for the commands that consume reports (fit, check, compare,
// plot, export): each result's status and points, and its fit computed again from the points
// over the report's fitted region. The report's own fit must agree with that one (a report
// whose stored exponent its points do not give was edited or is corrupt, and is refused), so
// the gates judge what the points say.
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/asymptote_fit.hpp"
#include "core/report_words.hpp"

namespace readbench {

struct ReportPoint {
  double length = 0;
  double seconds = 0;  // the report's statistic (config.statistic: min or median)
  double min_s = 0;
  double median_s = 0;
  double gbps = 0;
  double kv_bytes = 0;  // K and V bytes a call reads
  // Its sampling ran out of budget before clean samples replaced the disturbed ones (a busy
  // machine's time is in it); false in reports written before it was recorded.
  bool contended = false;
};

struct ReportResult {
  std::string backend, path;
  Status status = Status::ok;
  std::string reason;
  std::vector<ReportPoint> points;    // in the report's order (increasing length)
  std::optional<ReadFit> fit;         // null where nothing was timed or the fit was refused
  std::optional<GridStop> grid_stop;  // why the grid ended (version 2; none in version 1)
  std::string grid_reason;
  std::string label() const { return backend + "/" + path; }
  std::vector<TimedPoint> timed_points() const;
  bool timed() const { return status == Status::ok && !points.empty(); }
};

// Where a report came from, as check and compare name it beside its numbers.
struct ReportOrigin {
  std::string source, machine, git_commit;
  Statistic statistic = Statistic::min;
  QualityVerdict quality = QualityVerdict::clean;
  // The processor's architecture and the CPU kernels that ran ("aarch64, CPU kernels
  // arm-bf16"), from the report's machine.cpu.arch and its cpu backend's kernels; empty for
  // reports written before either was recorded.
  std::string cpu;
  // The set-up a CPU row's numbers depend on beyond the workload: the threads the CPU backend
  // ran (0 where the report does not say), the CPU model and its core count (0: not said).
  int threads = 0;
  std::string cpu_model;
  int cpu_cores = 0;
  std::string name() const { return source + " (" + machine + ")"; }
};
nlohmann::ordered_json origin_to_json(const ReportOrigin& o);

struct Report {
  std::string source;      // file name, or "stdin"
  std::string machine;     // hostname, with the GPUs' names where there are any
  std::string git_commit;  // of the readbench that wrote it
  Statistic statistic = Statistic::min;
  std::string cpu;  // ReportOrigin::cpu
  int threads = 0;  // ReportOrigin::threads, cpu_model, cpu_cores
  std::string cpu_model;
  int cpu_cores = 0;
  int schema_version = 0;
  QualityVerdict quality = QualityVerdict::clean;  // version 1 reports: clean
  // machine.gpus[]: the device index (absent in reports written before it was recorded) and
  // the model, in order.
  struct Gpu {
    std::optional<std::int64_t> index;
    std::string name;
  };
  std::vector<Gpu> gpus;
  // How each backend issued its timed calls (backends[].launch; GPU backends only, and absent in
  // reports written before it was recorded), by backend name.
  std::map<std::string, std::string> launches;
  std::vector<std::string> quality_reasons;
  // False for a run a signal stopped (`complete` in the report; a report without it, as every
  // version 1 report, is complete), with the signal's name.
  bool complete = true;
  std::string signal;
  std::string plugin_exit;  // or how a plugin ended the run ("exit(0)"): `plugin_exit`
  std::string config;  // dtype, shape and cache: "bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache"
  // The same, field by field, for readers that label or group by them (fleet, openmetrics).
  struct Shape {
    std::string dtype, kv_dtype;
    std::int64_t batch = 0, q_heads = 0, kv_heads = 0, head_dim = 0, block_size = 0;
  };
  Shape shape;
  std::string hostname;   // machine.hostname alone
  std::string version;    // tool.version: the readbench that wrote it, empty where absent
  // Each backend's measured read ceiling (machine.bandwidths[].read_gbps, 1e9 B/s), by name.
  std::map<std::string, double> read_ceilings_gbps;
  std::vector<ReportResult> results;

  const ReportResult* find(const std::string& backend, const std::string& path) const;
  // The model of the GPU behind a backend ("cuda", "cuda:1"), or empty where the report does
  // not say: cuda:N is the GPU of index N; cuda the report's one GPU, or its first.
  std::string gpu_model(const std::string& backend) const;
  ReportOrigin origin() const {
    return {source, machine, git_commit, statistic, quality, cpu, threads, cpu_model, cpu_cores};
  }
  // "incomplete: stopped by SIGINT" (or "incomplete: a plugin ended the run with exit(0)"), or
  // empty for a complete report.
  std::string incompleteness() const;
};

// Throws InputError naming `source` and the offending field: not JSON, not a report, a
// schema_version other than the current or the three before it, a required field missing or of the
// wrong type, lengths not increasing, a min above its median, a stored fit its points do not
// give.
Report report_from_json(const nlohmann::json& j, const std::string& source);
Report parse_report(const std::string& text, const std::string& source);

}  // namespace readbench
