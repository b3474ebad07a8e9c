// Wires the subcommands and maps every error to one line on stderr and an exit code:
// 0 success, 1 the answer is "no" (a correctness check failed, a regression found), 2 bad usage or
// bad input.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string>

#include "backends/cpu/omp_wait_policy.hpp"
#include "cli/commands.hpp"
#include "core/errors.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  // First: it may re-execute the process so libgomp starts with readbench's wait policy.
  readbench::cpu::apply_default_wait_policy(argv);
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
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->set_version_flag("--version", app.version());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "readbench: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const readbench::InputError& e) {
    std::cerr << "readbench: " << e.what() << '\n';
    return 2;
  } catch (const readbench::BackendError& e) {
    std::cerr << "readbench: " << e.what() << '\n';
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "readbench: out of host memory: reduce --batch or the longest length\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "readbench: error: " << e.what() << '\n';
    return 2;
  }
  return exit_code;
}
