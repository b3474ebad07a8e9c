#pragma once
// The CI gate: each backend/path of a report judged against a baseline report.
// Pure: the reports come in already read, the verdict goes out as data, markdown and JSON.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/check_allow.hpp"
#include "report/fit_json.hpp"
#include "report/report_input.hpp"

namespace readbench {

struct CheckOptions {
  double tolerance = 0.10;               // allowed rise of the exponent p
  std::optional<double> max_cost_ratio;  // per-token cost gate: current / baseline; off if empty
  Allowances allow;                      // --allow: reports judged that would be refused
  // Judge rows whose configurations differ (workload, statistic, GPU model), with a note,
  // instead of refusing them.
  bool allow_config_mismatch = false;
  // Skip a baseline row the current report lacks, instead of counting it a regression.
  bool allow_missing = false;
};

// Throws InputError naming the option: a negative or non-finite tolerance, a cost ratio that
// is not a finite number > 0.
void validate(const CheckOptions& o);

// Comparisons of exponents allow this much for rounding, so an exponent exactly at
// baseline + tolerance (as written to JSON and read back) is not a regression.
constexpr double kExponentSlack = 1e-9;

enum class Verdict { ok, regression, skipped };
std::string_view to_string(Verdict v);

struct CheckRow {
  std::string backend, path;
  std::optional<ReportResult> baseline, current;  // empty where the report has no such result
  // The lengths both report at or above both fits' fit_from, and the power law of each side
  // fitted again over just those: the exponents the rules compare.
  std::vector<double> lengths;
  std::optional<FitResult> baseline_fit, current_fit;
  std::optional<double> delta_exponent;  // current p - baseline p over `lengths`
  std::optional<double> cost_ratio;      // current / baseline marginal cost per token, both > 0
  // How far the current read's shape departs from the baseline's over `lengths`: the highest,
  // over them, of current over baseline cost per token, over that ratio's geometric mean (1
  // where both bend alike). Empty where exponents were not compared.
  std::optional<double> extra_bend;
  // The one length between the first and the last left out of extra_bend (which is then the
  // rest's departure): it alone departed past the margin, the rest within it both ways, and
  // the exponent without it rose no more than the tolerance (a disturbed point, not a bend).
  // Empty where none was.
  std::optional<double> bend_left_out;
  bool configs_differ = false;  // judged under --allow-config-mismatch with the set-ups apart
  Verdict verdict = Verdict::skipped;
  std::vector<std::string> reasons;  // each rule broken (regression), or why skipped
  std::vector<std::string> notes;    // caveats that change no verdict
  std::string label() const { return backend + "/" + path; }
};

// Where a report came from, for the table's heading and the JSON.
struct CheckOutcome {
  CheckOptions options;
  ReportOrigin baseline, current;
  std::vector<CheckRow> rows;      // the current report's order, then those only in the baseline
  std::vector<std::string> notes;  // caveats about the two reports as a whole
  int compared = 0;                // rows judged ok or regression
  int regressions = 0;
  int skipped = 0;
  bool incomplete_judged = false;  // an incomplete report judged under --allow incomplete
  bool contended_judged = false;   // a contended report judged under --allow contended
  // Rows judged ok whose current fit is not at its asymptote: their exponent is not the read's
  // alone, so the gate compared too little to pass them unless --allow not-reached. Not those
  // whose current fit misses it only by a cost per token that has not settled, of the
  // baseline's shape within 1 + kSettleRise (extra_bend) on one set-up, with the exponent within
  // the tolerance (check.cpp's changes_alike): both exponents then describe the same change
  // (the machine's caches), and compare.
  std::vector<std::string> not_reached;
  // Rows left unjudged because neighbouring points of their fitted region kept disturbed samples
  // (contended_points), unless --allow contended.
  std::vector<std::string> contended;
  bool passed() const { return regressions == 0 && judged(); }
  // Whether the gate could answer: false where rows are not reached, or contended, and not
  // allowed (exit 4); a regression elsewhere answers all the same.
  bool judged() const {
    return regressions > 0 ||
           ((not_reached.empty() || options.allow.not_reached) && contended.empty());
  }
};

// Lengths both sides need in common for their exponents to be compared. Each side's own fit
// follows the region rule (asymptote_fit.hpp); a row whose current fit is not at its asymptote is
// marked and not passed unless allowed, or unless it bends as its baseline does (not_reached).
constexpr int kCheckMinLengths = 3;

// One row per backend/path in either report. For a path with fits on both sides, both power
// laws are fitted again over the lengths the two reports share at or above both fits'
// fit_from (at least kCheckMinLengths; where fewer, the current fit
// starts past the baseline's and the baseline reached its asymptote, over those both share from the
// first of the baseline's fitted lengths from which the current read's own shares reach
// kAsymptoteShare, with a note; else the row is skipped saying so, unless the cost gate is on
// and the marginal cost ratio, each side's own fit's, exceeds it: a regression all the same).
// A regression: the exponent rose by more than the tolerance and its 95% CI lies wholly above
// baseline + tolerance; or the regime worsened (flat < sublinear < linear < superlinear) with
// the current CI wholly inside worse bands; or, with the cost gate on, the ratio of marginal costs
// per token exceeds it. Also a regression: a path ok in the baseline and `failed` in the current
// report, and a baseline row absent from the current report (unless `o.allow_missing`).
// Skipped: unavailable in the current report, only in the current report, no fit on either side.
// Throws InputError when nothing is judged (a gate that compares nothing must not pass); with
// the cost gate on, a row whose marginal cost is not > 0 gets a note and no ratio. Validates
// `o` first. Throws CannotJudge on an incomplete or contended report unless `o.allow` allows it
// (check_allow.hpp); one judged anyway is noted.
CheckOutcome check_reports(const Report& baseline, const Report& current, const CheckOptions& o);

// "readbench check: PASS: ..." or "readbench check: FAIL: ...", one line.
std::string format_check_summary(const CheckOutcome& r);

// A heading, the table (one row per backend/path), notes, then the summary line: fit for a CI
// job summary (GitHub's $GITHUB_STEP_SUMMARY).
std::string format_check_markdown(const CheckOutcome& r);

// The verdict: pass, options, counts, and per row the verdict, reasons and both sides' fits,
// numbers as JSON numbers and null where absent.
Json check_to_json(const CheckOutcome& r);

}  // namespace readbench
