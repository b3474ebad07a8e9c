#pragma once
// Options several subcommands share, and the reading of an input file or stdin.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "report/report_input.hpp"

namespace readbench::cli {

// Rejects a leading minus sign, which unsigned options would otherwise wrap around.
CLI::Validator not_negative();

// "auto" (empty: the fit picks its region) or a length >= 0. Throws InputError naming the value.
std::optional<double> parse_fit_from(const std::string& text);

// Refuses an empty output path: `--json "$UNSET"` would otherwise read as "no report" and
// drop it silently.
CLI::Validator output_path();

// --batch, --q-heads, --kv-heads, --head-dim, --block-size with the SPEC §2 defaults.
void add_shape_options(CLI::App* app, Shape& shape);

// The whole of FILE, or of stdin for "-". Throws InputError naming the file and the reason.
std::string read_input(const std::string& path);

// A readbench report from FILE or stdin ("-"), its errors naming the file (or "stdin").
Report read_report(const std::string& path);
// Several; stdin may be named once only (a second read would find it empty).
std::vector<Report> read_reports(const std::vector<std::string>& paths);

// A progress line on stderr, only when stderr is a terminal; done() or the destructor clears
// it, so an error message never lands on the end of a progress line.
class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine() { done(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void show(std::string_view message);
  void done();

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace readbench::cli
