#pragma once
// One file per subcommand (run_command.cpp, fit_command.cpp, ...): each
// registers itself on the app; its callback stores the process exit code.
#include <CLI/CLI.hpp>

namespace readbench::cli {

// The exit status of an answer that cannot be given from what was measured: a gate that
// cannot judge (CannotJudge; check's rows not at their asymptote), `run --require-fit` with a
// path timed but not fitted.
inline constexpr int kExitCannotJudge = 4;

void setup_run_command(CLI::App& app, int& exit_code);
void setup_fit_command(CLI::App& app, int& exit_code);
void setup_check_command(CLI::App& app, int& exit_code);
void setup_plot_command(CLI::App& app, int& exit_code);
void setup_verify_command(CLI::App& app, int& exit_code);
void setup_compare_command(CLI::App& app, int& exit_code);
void setup_export_command(CLI::App& app, int& exit_code);
void setup_fleet_command(CLI::App& app, int& exit_code);
void setup_ab_command(CLI::App& app, int& exit_code);
void setup_ab_worker_command(CLI::App& app, int& exit_code);

}  // namespace readbench::cli
