#include "cli/signal_handlers.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

#include "core/interrupt.hpp"

namespace readbench::cli {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[std::size(kStopSignals)];

// Lock-free atomics only: the handler reads and writes them.
std::atomic<int> g_deferring{0};  // DeferStop scopes alive
std::atomic<int> g_deferred{0};   // a second signal that came during one

extern "C" void on_stop_signal(int signal) {
  if (request_interrupt(signal)) return;
  if (g_deferring.load() > 0) {
    g_deferred.store(signal);
    // The last scope may have ended between the load and the store, its destructor finding
    // nothing: whichever of it and this handler takes the signal out of g_deferred exits.
    if (g_deferring.load() > 0 || g_deferred.exchange(0) == 0) return;
  }
  ::_exit(exit_status_for_signal(signal));
}

}  // namespace

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // Restarted calls: code between safe points need not expect EINTR.
  sa.sa_flags = SA_RESTART;
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    ::sigaction(kStopSignals[i], nullptr, &g_previous[i]);
    // A signal ignored when readbench started (nohup, a background job) stays ignored.
    if (g_previous[i].sa_handler != SIG_IGN) ::sigaction(kStopSignals[i], &sa, nullptr);
  }
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
    ::sigaction(kStopSignals[i], &g_previous[i], nullptr);
}

DeferStop::DeferStop() {
  g_deferring.fetch_add(1);
}

DeferStop::~DeferStop() {
  if (g_deferring.fetch_sub(1) == 1)
    if (const int signal = g_deferred.exchange(0); signal != 0)
      ::_exit(exit_status_for_signal(signal));
}

}  // namespace readbench::cli
