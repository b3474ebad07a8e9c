// `readbench export`: a report in formats dashboards ingest.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_report.hpp"
#include "core/errors.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "report/export.hpp"
#include "report/json_text.hpp"
#include "report/openmetrics.hpp"
#include "report/standard_output.hpp"

namespace readbench::cli {

namespace {

struct ExportOptions {
  std::string format;
  std::string input;
  std::string output = "-";
};

int run(const ExportOptions& o) {
  check_distinct_files({{"the report", o.input}}, {{"-o", o.output}});
  check_writable(o.output);
  const AnyReport rep = read_any_report(o.input);
  if (o.format == "openmetrics") {
    if (rep.ab)
      throw InputError(o.input +
                       " is an ab report: --format openmetrics takes a run report (its two arms "
                       "would repeat one host's series)");
    write_atomically(o.output, openmetrics_text(*rep.run));
    return 0;
  }
  const Json out = rep.ab ? (o.format == "bmf" ? export_ab_bmf(*rep.ab) : export_ab_gab(*rep.ab))
                          : (o.format == "bmf" ? export_bmf(*rep.run) : export_gab(*rep.run));
  write_atomically(o.output, json_text(out));
  // The export carries the verdict in its entries; a person running it hears it too.
  for (const Report* r : rep.ab ? std::vector<const Report*>{&rep.ab->base, &rep.ab->head}
                                 : std::vector<const Report*>{&*rep.run})
    if (r->quality == QualityVerdict::contended)
      write_error_line("note: " + r->source +
                       " is contended: the machine's other work is in the exported numbers");
  return 0;
}

}  // namespace

void setup_export_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "A report in formats dashboards ingest: bmf (Bencher Metric Format), gab "
      "(github-action-benchmark's customSmallerIsBetter) or openmetrics (Prometheus, the node "
      "exporter's textfile collector)");
  sub->add_option("--format", o->format, "bmf, gab or openmetrics")
      ->required()
      ->check(CLI::IsMember({"bmf", "gab", "openmetrics"}));
  sub->add_option("report", o->input, "A readbench JSON report, or - for stdin")->required();
  sub->add_option("-o,--output", o->output, "Write to FILE (- for stdout)")
      ->check(output_path())
      ->capture_default_str();
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
