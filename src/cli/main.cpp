// Wires the subcommands and maps every error to one line on stderr and an exit code:
// 0 success, 1 the answer is "no" (a correctness check failed, a regression found), 2 bad usage or
// bad input, or stdout could not be written, 3 `run` measured but a report file could not be
// written, 4 a gate cannot judge (an incomplete report), 128 + N `run` stopped by signal N.
#include <omp.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdlib>
#include <new>
#include <string>

#include "backends/cpu/cpu_budget.hpp"
#include "backends/cpu/omp_wait_policy.hpp"
#include "cli/commands.hpp"
#include "cli/parse_error_text.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "report/standard_output.hpp"
#include "version.hpp"

namespace {

int run_command_line(int argc, char** argv) {
  CLI::App app{"readbench: how the cost of reading a paged KV cache grows with history length"};
  app.set_version_flag("--version", std::string("readbench ") + readbench::kVersion + " (" +
                                        readbench::kGitCommit + ")");
  app.require_subcommand(1, 1);
  app.fallthrough(false);
  int exit_code = 0;
  readbench::cli::setup_run_command(app, exit_code);
  readbench::cli::setup_fit_command(app, exit_code);
  readbench::cli::setup_check_command(app, exit_code);
  readbench::cli::setup_plot_command(app, exit_code);
  readbench::cli::setup_verify_command(app, exit_code);
  readbench::cli::setup_compare_command(app, exit_code);
  readbench::cli::setup_export_command(app, exit_code);
  readbench::cli::setup_fleet_command(app, exit_code);
  readbench::cli::setup_ab_command(app, exit_code);
  readbench::cli::setup_ab_worker_command(app, exit_code);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->set_version_flag("--version", app.version());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A first word that is not an option is a command: a mistyped one is named, with the
    // commands there are (CLI11 would only say that one is required).
    std::string commands;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
      known = known || (argc > 1 && sub->get_name() == argv[1]);
    }
    if (argc > 1 && argv[1][0] != '-' && !known) {
      readbench::write_error_line(std::string("unknown command '") + argv[1] +
                                  "' (expected one of " + commands + ")");
      return 2;
    }
    readbench::write_error_line(readbench::cli::parse_error_text(e.what()) + " (see --help)");
    return 2;
  } catch (const readbench::InputError& e) {
    readbench::write_error_line(e.what());
    return 2;
  } catch (const readbench::Interrupted& e) {
    return e.signal() + 128;  // a signal reached a command that has nothing to keep
  } catch (const readbench::CannotJudge& e) {
    readbench::write_error_line(e.what());
    return readbench::cli::kExitCannotJudge;
  } catch (const readbench::BackendError& e) {
    readbench::write_error_line(e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Buffers readbench sizes itself name themselves (BackendError); this is any other one.
    readbench::write_error_line(
        "out of host memory: an allocation failed (a smaller --batch or longest length needs "
        "less)");
    return 2;
  } catch (const std::exception& e) {
    readbench::write_error_line(std::string("error: ") + e.what());
    return 2;
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // First: it may re-execute the process so libgomp starts with readbench's wait policy.
  readbench::cpu::apply_default_wait_policy(argv);
  readbench::hold_standard_descriptors();  // before anything opens a file
  // A reader that went away (`readbench check ... | head -1`) makes writes fail with EPIPE,
  // reported as stdout that could not be written (exit 2), rather than a silent SIGPIPE death.
  std::signal(SIGPIPE, SIG_IGN);
  // A write past the file-size limit (`ulimit -f`) then fails with EFBIG, a write error like
  // any other (the temporary file removed, the old report kept), rather than killing readbench
  // with SIGXFSZ midway through a report.
  std::signal(SIGXFSZ, SIG_IGN);
  // OpenMP regions that name no thread count (the workload fill, the f64 reference) take what
  // this process may really use (affinity mask and cgroup quota), not a thread per CPU of the
  // mask: past a quota they would get the group throttled just before a point is timed. A
  // user's OMP_NUM_THREADS stands.
  if (std::getenv("OMP_NUM_THREADS") == nullptr)
    omp_set_num_threads(readbench::cpu::available_cpus().cpus);
  const int exit_code = run_command_line(argc, argv);
  // A table or report on stdout that did not get out is a failure, whatever the command said.
  try {
    readbench::close_stdout();
  } catch (const readbench::OutputError& e) {
    if (exit_code != 2) readbench::write_error_line(e.what());  // one line only
    // Stopped by a signal, say a hangup that took the terminal: the signal is the news.
    return exit_code > 128 ? exit_code : 2;
  }
  return exit_code;
}
