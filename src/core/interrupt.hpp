#pragma once
// The interrupt flag: a signal handler (src/cli/signal_handlers.cpp) stores the signal number,
// and long work checks it at safe points (between samples, lengths, verification lengths,
// chunks of a fill or of the ceiling measurement) and unwinds with Interrupted; the sweep
// catches it and keeps what was measured. Inside a parallel region (the CPU reads, the
// reference, the fill) the flag only makes the threads stop taking work: nothing throws there.
#include <stdexcept>
#include <string>

namespace readbench {

// Thrown at a safe point once a signal has asked the run to stop.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// 0, or the first signal that asked the run to stop.
int interrupt_signal();

// Records `signal` unless one is recorded already; returns whether it was the first.
// Async-signal-safe: a lock-free atomic, nothing else.
bool request_interrupt(int signal);

// Forgets the recorded signal (tests).
void clear_interrupt();

// Throws Interrupted when a signal has asked the run to stop.
inline void throw_if_interrupted() {
  if (const int s = interrupt_signal(); s != 0) throw Interrupted(s);
}

// "SIGINT", "SIGTERM", "SIGHUP", or "signal N" for any other.
std::string signal_name(int signal);

// The number of a name signal_name gives, or 0 for one it does not know.
int signal_number(const std::string& name);

}  // namespace readbench
