#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <new>
#include <string>

#include "cli/commands.hpp"
#include "cli/parse_error_text.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "report/standard_output.hpp"
#include "version.hpp"

namespace readbench::cli {

int run_command_line(int argc, char** argv) {
  CLI::App app{"readbench: how the cost of reading a paged KV cache grows with history length"};
  app.set_version_flag("--version", std::string("readbench ") + kVersion + " (" + kGitCommit + ")");
  app.require_subcommand(1, 1);
  app.fallthrough(false);
  int exit_code = 0;
  setup_run_command(app, exit_code);
  setup_fit_command(app, exit_code);
  setup_check_command(app, exit_code);
  setup_plot_command(app, exit_code);
  setup_verify_command(app, exit_code);
  setup_compare_command(app, exit_code);
  setup_export_command(app, exit_code);
  setup_fleet_command(app, exit_code);
  setup_ab_command(app, exit_code);
  setup_ab_worker_command(app, exit_code);
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
      write_error_line(std::string("unknown command '") + argv[1] + "' (expected one of " +
                       commands + ")");
      return 2;
    }
    write_error_line(parse_error_text(e.what()) + " (see --help)");
    return 2;
  } catch (const InputError& e) {
    write_error_line(e.what());
    return 2;
  } catch (const Interrupted& e) {
    return e.signal() + 128;  // a signal reached a command that has nothing to keep
  } catch (const CannotJudge& e) {
    write_error_line(e.what());
    return kExitCannotJudge;
  } catch (const BackendError& e) {
    write_error_line(e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Buffers readbench sizes itself name themselves (BackendError); this is any other one.
    write_error_line(
        "out of host memory: an allocation failed (a smaller --batch or longest length needs "
        "less)");
    return 2;
  } catch (const std::exception& e) {
    write_error_line(std::string("error: ") + e.what());
    return 2;
  }
  return exit_code;
}

}  // namespace readbench::cli
