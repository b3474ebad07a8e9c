// `readbench check`: the CI gate, a report's exponents against a baseline's.
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_report.hpp"
#include "core/errors.hpp"
#include "report/ab_report.hpp"
#include "report/atomic_write.hpp"
#include "report/check.hpp"
#include "report/distinct_files.hpp"
#include "report/json_text.hpp"
#include "report/standard_output.hpp"

namespace readbench::cli {

namespace {

struct CheckCommandOptions {
  std::string report, baseline, json_path, allow;
  CheckOptions check;
  double max_cost_ratio = 0;
  const CLI::Option* max_cost_ratio_given = nullptr;
  const CLI::Option* tolerance_given = nullptr;
  const CLI::Option* allow_given = nullptr;
};

// An ab report is gated on its own pairs: its verdict, again under the thresholds given.
int check_ab(const CheckCommandOptions& o, AbReport ab) {
  if (!ab.complete && !o.check.allow.incomplete)
    throw CannotJudge(ab.source + " is incomplete (stopped by " + ab.signal +
                      "): not judged unless --allow incomplete");
  PairedThresholds t = ab.result.config.thresholds;
  if (o.tolerance_given->count() > 0) t.tolerance = o.check.tolerance;
  if (o.max_cost_ratio_given->count() > 0) t.max_cost_ratio = o.max_cost_ratio;
  if (t.max_cost_ratio < 1) throw InputError("--max-cost-ratio must be >= 1 for an ab report");
  rejudge(ab.result, t);
  if (!o.json_path.empty()) {
    Json pairings = Json::array();
    for (const AbPairing& p : ab.result.pairings)
      pairings.push_back({{"pairing", p.name()},
                          {"verdict", p.comparison ? to_string(p.comparison->verdict) : "inconclusive"},
                          {"reason", p.comparison ? p.comparison->reason : p.reason}});
    write_atomically(o.json_path, json_text({{"source", ab.source},
                                             {"tolerance", t.tolerance},
                                             {"max_cost_ratio", t.max_cost_ratio},
                                             {"pairings", pairings},
                                             {"verdict", to_string(ab.result.verdict())}}));
  }
  if (o.json_path != "-") write_stdout(format_ab_markdown(ab.result));
  return exit_status_of(ab.result.verdict());
}

int run(CheckCommandOptions& o) {
  // Every option is checked before anything is read or written.
  if (o.max_cost_ratio_given->count() > 0) o.check.max_cost_ratio = o.max_cost_ratio;
  if (o.allow_given->count() > 0) o.check.allow = parse_allowances(o.allow);
  validate(o.check);
  if (o.report == "-" && o.baseline == "-")
    throw InputError("the report and --baseline cannot both be stdin");
  std::vector<RolePath> inputs{{"the report", o.report}};
  if (!o.baseline.empty()) inputs.push_back({"--baseline", o.baseline});
  check_distinct_files(inputs, {{"--json", o.json_path}});
  if (!o.json_path.empty()) check_writable(o.json_path);

  AnyReport read = read_any_report(o.report);
  if (read.ab) {
    if (!o.baseline.empty())
      throw InputError(o.report + " is an ab report: it is gated on its own pairs, without --baseline");
    return check_ab(o, std::move(*read.ab));
  }
  if (o.baseline.empty())
    throw InputError("--baseline is required to check a run report (an ab report needs none)");
  const Report baseline = read_report(o.baseline);
  const Report current = std::move(*read.run);
  const CheckOutcome result = check_reports(baseline, current, o.check);

  if (!o.json_path.empty()) write_atomically(o.json_path, json_text(check_to_json(result)));
  // JSON on stdout replaces the table there, so the output stays machine-readable.
  if (o.json_path != "-") write_stdout(format_check_markdown(result));
  if (!result.judged() && !result.contended.empty()) {
    std::string which;
    for (const std::string& label : result.contended) which += (which.empty() ? "" : ", ") + label;
    write_error_line("cannot judge " + which +
                     ": neighbouring points of the fitted region kept disturbed samples (the "
                     "table says which); --allow contended judges them anyway");
  } else if (!result.judged()) {
    std::string which;
    for (const std::string& label : result.not_reached)
      which += (which.empty() ? "" : ", ") + label;
    write_error_line("cannot judge: the current fit of " + which +
                     " is not at its asymptote (the table says why); --allow not-reached passes "
                     "it anyway");
  }
  return result.passed() ? 0 : result.judged() ? 1 : kExitCannotJudge;
}

}  // namespace

void setup_check_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CheckCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "check",
      "CI gate: compare a report's exponents with a baseline report's; exit 1 on a regression");
  sub->footer(
      "Both reports' fits are computed again from their points; each side's exponent over the\n"
      "lengths both share at or above both fits' fit_from (at least 3; where fewer, the\n"
      "current fit starts past the baseline's and the baseline reached its asymptote, from\n"
      "the first of the baseline's fitted lengths where the current's shares reach 0.8 on;\n"
      "else skipped, but for the cost rule, which needs no shared lengths).\n"
      "For each backend/path with fits in both reports, a regression is:\n"
      "  - the exponent p above baseline p + tolerance, with the current 95% CI wholly above\n"
      "    it too (the point estimate where the fit has no CI); exactly at the limit passes;\n"
      "  - the regime worse (flat < sublinear < linear < superlinear), with the current 95% CI\n"
      "    wholly past the upper edge of the baseline's band;\n"
      "  - with --max-cost-ratio R, current / baseline marginal cost per token above R.\n"
      "Rows whose configurations differ (workload, statistic, GPU model, how a GPU's calls\n"
      "were launched; on the CPU threads, CPU model, cores) are refused, naming the difference, "
      "unless --allow-config-mismatch.\n"
      "Also a regression: a path ok in the baseline and failed in the report (it broke), and\n"
      "a backend/path of the baseline missing from the report, unless --allow-missing.\n"
      "Skipped, not a regression: unavailable in the report (e.g. no GPU in CI), present\n"
      "only in the report, or without a fit on either side.\n"
      "Prints a markdown table (for $GITHUB_STEP_SUMMARY) and a one-line summary.\n"
      "An incomplete report (a run stopped by a signal) is not judged unless --allow\n"
      "incomplete, nor a contended one (a busy machine's) unless --allow contended.\n"
      "Exit 0: no regression; 1: a regression; 2: bad input, or nothing comparable (no\n"
      "backend/path with fits in both reports: a gate that compares nothing does not pass);\n"
      "4: a report is incomplete or contended and not allowed, or a row judged ok has a\n"
      "current fit not at its asymptote (marked NOT REACHED) without --allow not-reached;\n"
      "a fit that misses it only because its cost per token still rises is judged when, on\n"
      "one set-up, it has the baseline's shape within 1.25x (one lone length between the\n"
      "first and the last may depart, as a disturbed point) and p is within the tolerance.\n"
      "On the CPU rows, the threads, CPU model and core count are part of the configuration.\n"
      "An ab report (readbench ab --json) needs no baseline: its verdict is computed again from\n"
      "its pairs, under --tolerance and --max-cost-ratio where given (else its own); exit 0\n"
      "pass, 1 regression, 4 inconclusive.");
  sub->add_option("report", o->report,
                  "The current report (readbench run --json), or an ab report (readbench ab "
                  "--json, gated without a baseline); - for stdin")
      ->required();
  sub->add_option("--baseline", o->baseline,
                  "The baseline report to compare against (required for a run report)");
  o->tolerance_given =
      sub->add_option("--tolerance", o->check.tolerance,
                      "Rise of the exponent p allowed before it counts (finite, >= 0; an ab "
                      "report: its own unless given)")
          ->check(finite_number(NumberBound::non_negative))
          ->capture_default_str();
  o->max_cost_ratio_given =
      sub->add_option("--max-cost-ratio", o->max_cost_ratio,
                      "Also fail when current / baseline marginal cost per token exceeds this "
                      "(> 0; off by default: costs only compare on one machine)")
          ->check(finite_number(NumberBound::positive));
  o->allow_given = sub->add_option(
      "--allow", o->allow,
      "Judge anyway what is otherwise refused (exit 4), comma-separated: incomplete "
      "(a report of a run a signal stopped), contended, not-reached (pass rows whose current "
      "fit is not at its asymptote)");
  sub->add_option("--json", o->json_path, "Write the verdict as JSON to FILE (- for stdout)")
      ->check(output_path());
  sub->add_flag("--allow-config-mismatch", o->check.allow_config_mismatch,
                "Judge rows whose configurations differ (workload, statistic, GPU model, "
                "launch) instead of refusing them");
  sub->add_flag("--allow-missing", o->check.allow_missing,
                "Skip a backend/path of the baseline that the current report lacks, instead "
                "of counting it a regression");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
