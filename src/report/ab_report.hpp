#pragma once
// The report of `readbench ab` (schemas/readbench-ab.schema.json): the comparison, every pair of
// slices it rests on, and each arm as a run report of its own. Read back, the comparison is
// computed again from the pairs and must agree with what is stored, as a run report's fit must
// agree with its points.
#include <string>
#include <vector>

#include "measure/ab.hpp"
#include "report/fit_json.hpp"
#include "report/machine_info.hpp"
#include "report/report_input.hpp"

namespace readbench {

Json build_ab_report(const AbResult& r, const HostInfo& host, const std::string& created_at);

// A markdown summary: the verdict per pairing, its region, delta p and the cost ratio with their
// CIs, the per-length ratios, what the rounds took and why they stopped.
std::string format_ab_markdown(const AbResult& r);

// An ab report read back: the comparison recomputed from its pairs, with its arms as reports.
struct AbReport {
  std::string source;
  bool complete = true;
  std::string signal;
  AbResult result;         // config.thresholds, pairings (slices and comparisons), rounds...
  Report base, head;       // the arms, read as run reports ("FILE [base]")
};

// Whether `j` is an ab report (it has the "ab" object).
bool is_ab_report(const nlohmann::json& j);
// Throws InputError naming `source` and the field: not an ab report, a version this readbench
// does not read, a field missing or of the wrong type, slices that are not positive times, a
// stored ratio, delta p, cost ratio or verdict its pairs do not give.
AbReport ab_report_from_json(const nlohmann::json& j, const std::string& source);

// The verdict again under other thresholds.
void rejudge(AbResult& r, const PairedThresholds& thresholds);

// Exports of the comparison (export.hpp's formats): per pairing "ab/<pairing>" with delta_p and
// cost_ratio, each with its 95% CI as the bounds where there is one.
Json export_ab_bmf(const AbReport& r);
Json export_ab_gab(const AbReport& r);

// The exit status of a verdict: 0 pass, 1 regression, 4 inconclusive.
int exit_status_of(AbVerdict v);

}  // namespace readbench
