#include "core/interrupt.hpp"

#include <atomic>
#include <csignal>

#include "core/enum_names.hpp"

namespace readbench {

namespace {

// Written from a signal handler: only a lock-free atomic is safe there.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr Named<int> kSignalNames[] = {
    {SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}};

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error("stopped by " + signal_name(signal)), signal_(signal) {}

int interrupt_signal() {
  return g_signal.load(std::memory_order_relaxed);
}

bool request_interrupt(int signal) {
  int none = 0;
  return g_signal.compare_exchange_strong(none, signal);
}

void clear_interrupt() {
  g_signal.store(0);
}

std::string signal_name(int signal) {
  for (const Named<int>& n : kSignalNames)
    if (n.value == signal) return std::string(n.name);
  return "signal " + std::to_string(signal);
}

int signal_number(const std::string& name) {
  for (const Named<int>& n : kSignalNames)
    if (name == n.name) return n.value;
  return 0;
}

}  // namespace readbench
