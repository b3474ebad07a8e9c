#include "plugins/stdout_diversion.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/errors.hpp"

namespace readbench {

namespace {

std::atomic<int> g_own_stdout{STDOUT_FILENO};

}  // namespace

void divert_stdout_to_stderr() {
  if (g_own_stdout.load() != STDOUT_FILENO) return;
  // What readbench buffered for stdout belongs there, not to stderr.
  std::cout.flush();
  std::fflush(stdout);
  const int kept = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (kept < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    const int err = errno;
    if (kept >= 0) ::close(kept);
    throw BackendError(std::string("cannot keep plugins off stdout: ") + std::strerror(err));
  }
  g_own_stdout.store(kept);
}

int own_stdout_fd() {
  return g_own_stdout.load();
}

}  // namespace readbench
