// `readbench check`: the CI gate of SPEC §6, a report's exponents against a baseline's.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/errors.hpp"
#include "report/atomic_write.hpp"
#include "report/check.hpp"
#include "report/distinct_files.hpp"
#include "report/standard_output.hpp"

namespace readbench::cli {

namespace {

struct CheckCommandOptions {
  std::string report, baseline, json_path;
  CheckOptions check;
  double max_cost_ratio = 0;
  const CLI::Option* max_cost_ratio_given = nullptr;
};

int run(CheckCommandOptions& o) {
  // Every option is checked before anything is read or written.
  if (o.max_cost_ratio_given->count() > 0) o.check.max_cost_ratio = o.max_cost_ratio;
  validate(o.check);
  if (o.report == "-" && o.baseline == "-")
    throw InputError("the report and --baseline cannot both be stdin");
  check_distinct_files({{"the report", o.report}, {"--baseline", o.baseline}},
                       {{"--json", o.json_path}});
  if (!o.json_path.empty()) check_writable(o.json_path);

  const Report baseline = read_report(o.baseline);
  const Report current = read_report(o.report);
  const CheckOutcome result = check_reports(baseline, current, o.check);

  if (!o.json_path.empty()) write_atomically(o.json_path, check_to_json(result).dump(2) + "\n");
  // JSON on stdout replaces the table there, so the output stays machine-readable.
  if (o.json_path != "-") write_stdout(format_check_markdown(result));
  return result.passed() ? 0 : 1;
}

}  // namespace

void setup_check_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CheckCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "check",
      "CI gate: compare a report's exponents with a baseline report's; exit 1 on a regression");
  sub->footer(
      "For each backend/path with fits in both reports, a regression is:\n"
      "  - the exponent p above baseline p + tolerance, with the current 95% CI wholly above\n"
      "    it too (the point estimate where the fit has no CI); exactly at the limit passes;\n"
      "  - the regime worse (flat < sublinear < linear < superlinear), whatever the change in p;\n"
      "  - with --max-cost-ratio R, current / baseline per-token cost above R (noted when the\n"
      "    fits' longest lengths differ).\n"
      "Also a regression: a path ok in the baseline and failed in the report (it broke).\n"
      "Skipped, not a regression: unavailable in the report (e.g. no GPU in CI), present in\n"
      "only one report, or without a fit on either side.\n"
      "Prints a markdown table (for $GITHUB_STEP_SUMMARY) and a one-line summary.\n"
      "Exit 0: no regression; 1: a regression; 2: bad input, or nothing comparable (no\n"
      "backend/path with fits in both reports: a gate that compares nothing does not pass).");
  sub->add_option("report", o->report, "The current report (readbench run --json), - for stdin")
      ->required();
  sub->add_option("--baseline", o->baseline, "The baseline report to compare against")->required();
  sub->add_option("--tolerance", o->check.tolerance,
                  "Rise of the exponent p allowed before it counts (finite, >= 0)")
      ->check(finite_number(NumberBound::non_negative))
      ->capture_default_str();
  o->max_cost_ratio_given =
      sub->add_option("--max-cost-ratio", o->max_cost_ratio,
                      "Also fail when current / baseline per-token cost exceeds this (> 0; off "
                      "by default: per-token costs only compare on one machine)")
          ->check(finite_number(NumberBound::positive));
  sub->add_option("--json", o->json_path, "Write the verdict as JSON to FILE (- for stdout)")
      ->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
