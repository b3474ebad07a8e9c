#pragma once
// The command line: the subcommands wired onto one CLI11 app, every error mapped to one line on
// stderr and an exit code (cli/main.cpp lists them). Apart from main so that the one file that
// parses CLI11's header is built with the other commands.

namespace readbench::cli {

// Parses argv, runs the command it names and returns the process exit status.
int run_command_line(int argc, char** argv);

}  // namespace readbench::cli
