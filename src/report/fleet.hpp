#pragma once
// Many hosts' reports judged together: each device's marginal cost per token, read ceiling and
// fraction of that ceiling against the median of the devices it may be compared with (same
// model, backend kind, path, shape, dtypes, statistic and readbench version), as a relative
// deviation and a robust z. A group too small for a median is judged against a reference
// report, or not at all; nothing given is dropped without being named.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/report_input.hpp"

namespace readbench {

struct FleetOptions {
  double warn = 0.025;  // relative deviation from the median beyond which a device warns
  double fail = 0.06;   // ... and beyond which it fails
  double z = 3.5;       // the robust z a deviation must also pass, in groups of min_group or more
  int min_group = 5;    // fewer devices than this: judged against the reference
  // Judge contended reports too (--allow contended), each device's reason saying so: for a
  // slowdown far beyond a shared host's noise, as a test on a busy machine has.
  bool judge_contended = false;
};

// The statistics, closed-form, beside the median (core/statistics.hpp): the median absolute
// deviation from `median`, and the robust z 0.6745 (x - median) / MAD (infinite, signed, where
// MAD is 0 and x is not the median).
double mad_of(const std::vector<double>& v, double median);
double robust_z(double x, double median, double mad);

enum class FleetVerdict { ok, warn, fail, unjudged };
std::string_view to_string(FleetVerdict v);

// One figure of a device against its group: the value, the median (or the reference's value) it
// is judged against, the relative deviation and the robust z (none against a reference).
struct FleetFigure {
  std::optional<double> value, median, deviation, z;
};

// What must match to compare two devices, field by field (the group's key).
struct FleetKey {
  std::string model, backend_kind, path, config, statistic, version;
  bool operator==(const FleetKey&) const = default;
  // "model H200 vs A100, version 0.1.0 vs 0.2.0": the fields where `other` differs.
  std::string differences(const FleetKey& other) const;
  std::string name() const;
};

struct FleetDevice {
  std::string source, host, backend, path;
  FleetKey key;
  double marginal_s = 0, fixed_s = 0, exponent = 0;
  std::optional<double> ceiling_gbps, fraction;
  Report::Shape shape;
  FleetFigure marginal, ceiling, ceiling_fraction;
  FleetVerdict verdict = FleetVerdict::unjudged;
  std::string reason;
  std::string basis;  // "median of 12" or "reference FILE"
  std::string contended;  // why its report was contended, where it was judged all the same
  std::size_t group = 0;
};

// A report or one of its results left out of the judgement, and why (unreadable, failed,
// contended, incomplete, no fit, a duplicate).
struct FleetSkip {
  std::string source, what, reason;
};

struct FleetGroup {
  FleetKey key;
  std::size_t members = 0;
  std::string basis;       // how its members were judged, or why they were not
  std::string difference;  // from the largest group: what does not match
};

struct FleetJudgement {
  std::vector<FleetDevice> devices;  // worst first
  std::vector<FleetSkip> skipped;
  std::vector<FleetGroup> groups;  // largest first
  bool any_fail() const;
  bool any_unjudged() const;  // a device that could not be judged, or none at all
  // 0 every device judged and none failed, 1 one failed, 4 the fleet cannot be judged.
  int exit_code() const;
};

// `skipped` carries the reports that could not be read. `reference` judges groups smaller than
// options.min_group.
FleetJudgement judge_fleet(const std::vector<Report>& reports, std::vector<FleetSkip> skipped,
                           const std::optional<Report>& reference, const FleetOptions& options);

std::string fleet_markdown(const FleetJudgement& j, const FleetOptions& options);
nlohmann::ordered_json fleet_to_json(const FleetJudgement& j, const FleetOptions& options);

}  // namespace readbench
