#include "plugins/run_apart.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/strprintf.hpp"
#include "plugins/stdout_diversion.hpp"

namespace readbench {

namespace {

constexpr char kDone = 'd';              // first byte of a child's reply: the work returned
constexpr std::size_t kMaxReply = 4096;  // a pipe holds it whole, so the child never blocks

[[noreturn]] void child(const std::function<std::string()>& work, int fd, pid_t parent) {
  // Killed with its parent, so a hanging plugin never outlives a readbench that was killed.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  if (own_stdout_fd() != STDOUT_FILENO) ::close(own_stdout_fd());
  // A crash is the plugin's: the signal ends the child and the parent names it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  std::string reply(1, kDone);
  try {
    reply += work();
  } catch (...) {
    ::_exit(1);  // the work's contract is to catch; an escape is no reply
  }
  reply.resize(std::min(reply.size(), kMaxReply));
  const ssize_t written = ::write(fd, reply.data(), reply.size());
  ::_exit(written == ssize_t(reply.size()) ? 0 : 1);
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

}  // namespace

ChildEnd run_apart(const std::function<std::string()>& work, double timeout_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw BackendError(std::string("cannot run a plugin apart: pipe failed: ") +
                       std::strerror(errno));
  // What this process has buffered would otherwise be written twice, once by the child's exit.
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]), ::close(fds[1]);
    throw BackendError(std::string("cannot run a plugin apart: fork failed: ") +
                       std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(work, fds[1], parent);
  }
  ::close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  ChildEnd end;
  int status = 0;
  bool ended = false;
  while (!ended) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (interrupt_signal() != 0 || waited > timeout_s) {
      end.how = interrupt_signal() != 0 ? ChildEnd::How::interrupted : ChildEnd::How::timed_out;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Non-blocking: a process the plugin started may hold the pipe open.
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::string reply;
  char buf[512];
  for (ssize_t n; ended && (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    reply.append(buf, std::size_t(n));
  ::close(fds[0]);
  if (!ended) return end;
  if (!reply.empty() && reply[0] == kDone) {
    end.how = ChildEnd::How::returned;
    end.reply = reply.substr(1);
    for (char& ch : end.reply)
      if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  } else if (WIFSIGNALED(status)) {
    end.how = ChildEnd::How::signaled;
    end.code = WTERMSIG(status);
  } else {
    end.how = ChildEnd::How::exited;
    end.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return end;
}

std::string how_it_ended(const ChildEnd& end, double timeout_s) {
  switch (end.how) {
    case ChildEnd::How::signaled:
      return "crashed (" + signal_text(end.code) + ")";
    case ChildEnd::How::exited:
      return "ended the process (exit status " + std::to_string(end.code) + ")";
    case ChildEnd::How::timed_out:
      return "did not finish within " + strprintf("%g", timeout_s) + " s";
    case ChildEnd::How::interrupted:
      return "was stopped by " + signal_name(interrupt_signal());
    case ChildEnd::How::returned:
      break;
  }
  return "returned";
}

}  // namespace readbench
