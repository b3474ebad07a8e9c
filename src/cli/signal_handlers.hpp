#pragma once
// How `readbench run` answers SIGINT, SIGTERM and SIGHUP: the first asks the sweep to stop at
// its next safe point (core/interrupt.hpp), so what was measured is still reported; a second
// exits at once with 128 + N.
namespace readbench::cli {

// Installs the handlers, except for a signal ignored already; the dispositions found before
// come back when it ends.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

// While one is alive, a second signal waits for it to end before exiting, so a report being
// written is renamed into place or removed, never left as a temporary file.
class DeferStop {
 public:
  DeferStop();
  ~DeferStop();
  DeferStop(const DeferStop&) = delete;
  DeferStop& operator=(const DeferStop&) = delete;
};

// 128 + N: the exit status of a command stopped by signal N.
constexpr int exit_status_for_signal(int signal) {
  return 128 + signal;
}

}  // namespace readbench::cli
