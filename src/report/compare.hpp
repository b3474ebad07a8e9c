#pragma once
// `readbench compare`: reports from several machines side by side. Per backend/path, each
// report's marginal cost per token (the machine-comparison figure, ranked) with its fixed cost
// per call beside it, its per-token cost at the longest length every report timed, its fitted
// exponent and regime, and each against the first report.
#include <optional>
#include <string>
#include <vector>

#include "report/fit_json.hpp"
#include "report/report_input.hpp"

namespace readbench {

// One report's numbers for one backend/path.
struct CompareEntry {
  // ok; or why there are no numbers: missing (not in the report), unavailable, failed, or
  // not timed (ok, but without points)
  std::string status;
  std::string reason;                    // the report's reason, where it gives one
  std::optional<double> seconds;         // Comparison::statistic at the common length
  std::optional<double> per_token_s;     // seconds / length
  std::optional<ReadFit> fit;            // null where the report has none
  std::optional<double> cost_ratio;      // per_token_s over the first report's
  std::optional<double> marginal_ratio;  // marginal cost per token over the first report's
  std::optional<int> rank;  // 1 for the lowest positive marginal cost per token of the row
  std::optional<double> exponent_diff;  // exponent minus the first report's
};

struct CompareRow {
  std::string backend, path;
  // The longest length timed in every report that timed it; none where they share no length
  // (the exponents still compare).
  std::optional<double> length;
  std::vector<CompareEntry> entries;  // one per report, in the reports' order
  std::string label() const { return backend + "/" + path; }
};

struct Comparison {
  std::vector<ReportOrigin> reports;
  Statistic statistic = Statistic::min;  // of every cost: the reports' own, or min if they differ
  std::vector<CompareRow> rows;    // in the order backend/paths first appear in the reports
  std::vector<std::string> notes;  // caveats that change no number: incomplete reports
};

// Throws InputError for fewer than two reports, or when no backend/path is timed in every
// report.
Comparison compare_reports(const std::vector<Report>& reports);

// A markdown table (reports as columns, two rows per backend/path) with a footnote, then the
// notes.
std::string format_compare_markdown(const Comparison& c);
// One row per backend/path and report, so a spreadsheet can pivot it.
std::string format_compare_csv(const Comparison& c);
Json compare_to_json(const Comparison& c);

}  // namespace readbench
