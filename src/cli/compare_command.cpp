// `readbench compare`: reports from several machines side by side.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_report.hpp"
#include "report/atomic_write.hpp"
#include "report/compare.hpp"
#include "report/distinct_files.hpp"
#include "report/json_text.hpp"

namespace readbench::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> inputs;
  std::string format = "markdown";
  std::string output = "-";
};

int run(const CompareOptions& o) {
  std::vector<RolePath> inputs;
  for (std::size_t i = 0; i < o.inputs.size(); ++i)
    inputs.push_back({"report " + std::to_string(i + 1), o.inputs[i]});
  check_distinct_files(inputs, {{"-o", o.output}});
  check_writable(o.output);
  const Comparison c = compare_reports(read_reports(o.inputs));
  const std::string text = o.format == "csv"    ? format_compare_csv(c)
                           : o.format == "json" ? json_text(compare_to_json(c))
                                                : format_compare_markdown(c);
  write_atomically(o.output, text);
  return 0;
}

}  // namespace

void setup_compare_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Reports from several machines side by side: per backend/path, the marginal cost per "
      "token b (ranked), the fixed cost t0, the per-token cost at the longest length every "
      "report timed and the fitted exponent, with ratios to the first");
  sub->add_option("reports", o->inputs, "Two or more readbench JSON reports (- for stdin)")
      ->required();
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"markdown", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", o->output, "Write to FILE (- for stdout)")
      ->check(output_path())
      ->capture_default_str();
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
