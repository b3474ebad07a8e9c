#pragma once
// A readbench report read back for the commands that consume reports (fit, check, compare,
// plot, export): each result's status, points and fit as the report states them.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/fit.hpp"

namespace readbench {

struct ReportPoint {
  double length = 0;
  double seconds = 0;  // the report's statistic (config.statistic: min or median)
  double min_s = 0;
  double median_s = 0;
  double gbps = 0;
};

// The fit object of SPEC §6, the fields the consumers use.
struct ReportFit {
  double exponent = 0;
  double constant = 0;
  std::optional<double> ci95_low, ci95_high;  // both or neither
  Regime regime = Regime::flat;
  double per_token_s = 0;
  double longest_length = 0;
  int n_points = 0;
  double fit_from = 0;
};

struct ReportResult {
  std::string backend, path;
  std::string status;  // ok, unavailable or failed
  std::string reason;
  std::vector<ReportPoint> points;  // in the report's order (increasing length)
  std::optional<ReportFit> fit;     // null where nothing was timed or the fit was refused
  std::string label() const { return backend + "/" + path; }
  bool timed() const { return status == "ok" && !points.empty(); }
};

// Where a report came from, as check and compare name it beside its numbers.
struct ReportOrigin {
  std::string source, machine, git_commit, statistic;
  std::string name() const { return source + " (" + machine + ")"; }
};
nlohmann::ordered_json origin_to_json(const ReportOrigin& o);

struct Report {
  std::string source;      // file name, or "stdin"
  std::string machine;     // hostname, with the GPUs' names where there are any
  std::string git_commit;  // of the readbench that wrote it
  std::string statistic;   // min or median
  std::string config;      // dtype, shape and cache: "bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache"
  std::vector<ReportResult> results;

  const ReportResult* find(const std::string& backend, const std::string& path) const;
  ReportOrigin origin() const { return {source, machine, git_commit, statistic}; }
};

// Throws InputError naming `source` and the offending field: not JSON, not a report, an
// unknown schema_version, a required field missing or of the wrong type.
Report report_from_json(const nlohmann::json& j, const std::string& source);
Report parse_report(const std::string& text, const std::string& source);

}  // namespace readbench
