// Wires the subcommands and maps every error to one line on stderr and an exit code:
// 0 success, 1 the answer is "no" (a correctness check failed, a regression found), 2 bad usage or
// bad input, or stdout could not be written, 3 `run` measured but a report file could not be
// written, 4 a gate cannot judge (an incomplete report), 128 + N `run` stopped by signal N.
#include <omp.h>

#include <csignal>
#include <cstdlib>

#include "backends/cpu/cpu_budget.hpp"
#include "backends/cpu/omp_wait_policy.hpp"
#include "cli/command_line.hpp"
#include "core/errors.hpp"
#include "report/standard_output.hpp"

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
  const int exit_code = readbench::cli::run_command_line(argc, argv);
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
