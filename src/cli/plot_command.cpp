// `readbench plot`: a report as an SVG log-log plot.
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_report.hpp"
#include "report/ab_plot.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "report/plot.hpp"
#include "report/report_input.hpp"

namespace readbench::cli {

namespace {

struct PlotOptions {
  std::string input;
  std::string output;
};

int run(const PlotOptions& o) {
  check_distinct_files({{"the report", o.input}}, {{"-o", o.output}});
  check_writable(o.output);
  const AnyReport report = read_any_report(o.input);
  write_atomically(o.output, report.ab ? plot_ab_svg(*report.ab) : plot_svg(*report.run));
  return 0;
}

}  // namespace

void setup_plot_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Plot a readbench report as SVG: time per call against L on log-log axes, the points "
      "and fitted line of each backend/path, with its exponent (an ab report: both arms, and "
      "head/base against L with its 95% band)");
  sub->add_option("report", o->input, "A readbench JSON report, or - for stdin")->required();
  sub->add_option("-o,--output", o->output, "Write the SVG to FILE (- for stdout)")
      ->required()
      ->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
