// `readbench fleet`: many hosts' reports judged against each other, outliers named.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_report.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "report/fleet.hpp"
#include "report/json_text.hpp"
#include "report/openmetrics.hpp"

namespace readbench::cli {

namespace {

namespace fs = std::filesystem;

struct FleetCommandOptions {
  std::vector<std::string> inputs;
  std::string reference;
  std::string output = "-";
  std::string json;
  std::string openmetrics;
  std::string allow;
  FleetOptions rule;
};

// A directory stands for its *.json files, sorted by name; a file for itself.
std::vector<std::string> expand(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (in != "-" && fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (fs::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".json") found.push_back(it->path().string());
      if (ec) throw InputError(in + ": cannot list the directory: " + ec.message());
      std::sort(found.begin(), found.end());
      if (found.empty()) throw InputError(in + ": holds no *.json report");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  return files;
}

int run(FleetCommandOptions o) {
  if (!o.allow.empty() && o.allow != "contended")
    throw InputError("--allow takes contended, got '" + printable(o.allow) + "'");
  if (!o.allow.empty()) o.rule.judge_contended = true;
  if (!(o.rule.fail >= o.rule.warn))
    throw InputError("--fail " + std::to_string(o.rule.fail) + " is below --warn " +
                     std::to_string(o.rule.warn) +
                     ": failing must take at least a warning's deviation");
  std::vector<RolePath> outputs = {{"-o", o.output}};
  if (!o.json.empty()) outputs.push_back({"--json", o.json});
  if (!o.openmetrics.empty()) outputs.push_back({"--openmetrics", o.openmetrics});
  const std::vector<std::string> files = expand(o.inputs);
  if (std::count(files.begin(), files.end(), "-") > 1)
    throw InputError("stdin ('-') is named more than once: it can be read only once");
  std::vector<RolePath> inputs;
  for (const std::string& f : files) inputs.push_back({"a report", f});
  if (!o.reference.empty()) inputs.push_back({"--reference", o.reference});
  check_distinct_files(inputs, outputs);
  for (const RolePath& out : outputs) check_writable(out.path);

  // The reference is the operator's own: one that cannot be read is bad input. A member's
  // report that cannot be read is news about that member: named, and the rest judged.
  std::optional<Report> reference;
  if (!o.reference.empty()) reference = read_report(o.reference);
  std::vector<Report> reports;
  std::vector<FleetSkip> skipped;
  reports.reserve(files.size());
  for (const std::string& f : files) {
    try {
      reports.push_back(read_report(f));
    } catch (const OutputError&) {
      throw;
    } catch (const InputError& e) {
      skipped.push_back({f, "", std::string("unreadable: ") + e.what()});
    }
  }
  const FleetJudgement j = judge_fleet(reports, std::move(skipped), reference, o.rule);
  if (!o.json.empty()) write_atomically(o.json, json_text(fleet_to_json(j, o.rule)));
  if (!o.openmetrics.empty()) {
    std::vector<const Report*> all;
    for (const Report& r : reports) all.push_back(&r);
    write_atomically(o.openmetrics, openmetrics_text(all));
  }
  write_atomically(o.output, fleet_markdown(j, o.rule));
  return j.exit_code();
}

}  // namespace

void setup_fleet_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<FleetCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "fleet",
      "Many hosts' reports judged together: per device, the marginal cost per token, the read "
      "ceiling and the fraction of it reached, against the median of the devices that match "
      "(model, backend, path, shape, dtypes, version); outliers warn or fail. Exit 1 when a "
      "device fails, 4 when the fleet cannot be judged");
  sub->add_option("reports", o->inputs,
                  "readbench JSON reports, or directories of them (their *.json files)")
      ->required();
  sub->add_option("--warn", o->rule.warn,
                  "Warn beyond this relative deviation from the median (catches a 3.5% slowdown "
                  "through a 0.3% run-to-run spread; docs/fleet.md)")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_option("--fail", o->rule.fail,
                  "Fail beyond this relative deviation (catches a 7% slowdown)")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_option("--z", o->rule.z,
                  "A flagged deviation must also have a robust z beyond this (groups of "
                  "--min-group or more)")
      ->check(finite_number(NumberBound::non_negative))
      ->capture_default_str();
  sub->add_option("--min-group", o->rule.min_group,
                  "Fewer matching devices than this are judged against --reference instead")
      ->check(integer_in(1, 1000000))
      ->capture_default_str();
  sub->add_option("--allow", o->allow,
                  "contended: judge the reports of contended runs too (each device's reason says "
                  "so); by default they are named and left out")
      ->type_name("contended");
  sub->add_option("--reference", o->reference,
                  "A report whose matching results judge groups smaller than --min-group");
  sub->add_option("-o,--output", o->output, "Write the Markdown table to FILE (- for stdout)")
      ->check(output_path())
      ->capture_default_str();
  sub->add_option("--json", o->json, "Write the verdict as JSON to FILE")->check(output_path());
  sub->add_option("--openmetrics", o->openmetrics,
                  "Write every report's figures as OpenMetrics text to FILE")
      ->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
