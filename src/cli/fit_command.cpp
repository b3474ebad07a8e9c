// `readbench fit`: the power law and the fixed + marginal decomposition of user-supplied points.
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/read_input.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "report/fit_json.hpp"
#include "report/json_text.hpp"
#include "report/points_input.hpp"
#include "report/standard_output.hpp"
#include "report/text_report.hpp"

namespace readbench::cli {

namespace {

struct FitOptions {
  std::string input = "-";
  std::string fit_from = "auto";
  std::string json_path;
};

int run(const FitOptions& o) {
  check_distinct_files({{"the input", o.input}}, {{"--json", o.json_path}});
  if (!o.json_path.empty()) check_writable(o.json_path);
  const std::string source = o.input == "-" ? "stdin" : o.input;
  const auto series = parse_points(read_input(o.input), source);
  const std::optional<double> fit_from = parse_fit_from(o.fit_from);
  std::vector<ReadFit> fits;  // all fitted before anything is written
  for (const auto& s : series) {
    try {
      fits.push_back(fit_read(s.points, {fit_from, s.kv_bytes_per_token, s.read_ceiling_gbps}));
    } catch (const FitError& e) {
      // The file, and which of several series.
      throw InputError(source + ": " + (s.label.empty() ? "" : s.label + ": ") + e.what());
    }
  }

  if (!o.json_path.empty()) {
    Json out;
    if (series.size() == 1 && series[0].label.empty()) {
      out = fit_to_json(fits[0]);
    } else {
      out = Json::array();
      for (std::size_t i = 0; i < series.size(); ++i) {
        const auto slash = series[i].label.find('/');
        out.push_back({{"backend", series[i].label.substr(0, slash)},
                       {"path", series[i].label.substr(slash + 1)},
                       {"fit", fit_to_json(fits[i])}});
      }
    }
    write_atomically(o.json_path, json_text(out));
  }
  if (o.json_path != "-") {
    std::ostringstream table;
    for (std::size_t i = 0; i < series.size(); ++i)
      table << (series[i].label.empty() ? "fit" : series[i].label) << ":\n"
            << format_fit(fits[i], series[i].points);
    write_stdout(table.str());
  }
  return 0;
}

}  // namespace

void setup_fit_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* sub = app.add_subcommand(
      "fit",
      "Fit t = c*L^p and t = t0 + b*L to points: CSV (length,seconds header; a `run --csv` "
      "file gives one fit per backend/path), a JSON array of {length, seconds}, or a readbench "
      "report");
  sub->add_option("file", o->input, "Input file, or - for stdin")->capture_default_str();
  sub->add_option("--fit-from", o->fit_from,
                  "Fit lengths >= this: auto (from the first length whose time is at least 80% "
                  "length-dependent and whose cost per token has settled) or a length (0: all)")
      ->capture_default_str();
  sub->add_option("--json", o->json_path, "Write the fit as JSON to FILE (- for stdout)")
      ->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
