#include "measure/ab_arm.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "version.hpp"

namespace readbench {

namespace {

// A readbench that prints nothing in this long is not a worker (a program reading its stdin).
constexpr std::chrono::seconds kHelloTimeout{20};

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return signal_name(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

std::string ArmProcess::who() const {
  if (role_ == "both") return "the worker of both arms (" + binary_ + ")";
  return "the " + role_ + " arm (" + binary_ + ")";
}

ArmProcess::ArmProcess(std::string role, std::string binary)
    : role_(std::move(role)), binary_(std::move(binary)) {
  if (::access(binary_.c_str(), X_OK) != 0)
    throw InputError(who() + " is not an executable file: " + std::strerror(errno));
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) throw InputError(who() + ": pipe failed: " + std::strerror(errno));
  if (::pipe2(from, O_CLOEXEC) != 0) {
    ::close(to[0]);
    ::close(to[1]);
    throw InputError(who() + ": pipe failed: " + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    for (int fd : {to[0], to[1], from[0], from[1]}) ::close(fd);
    throw InputError(who() + " could not be started: " + std::strerror(errno));
  }
  if (pid_ == 0) {
    // The worker goes with its parent, whatever ends it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(to[0], STDIN_FILENO);
    ::dup2(from[1], STDOUT_FILENO);
    // Both arms at the same virtual addresses: with the layout randomized, each worker's
    // buffers meet the caches' sets and the predictors' tables at offsets of their own, and an
    // A/A of one build read up to 10% apart at a length, a difference pairing cannot cancel
    // (docs/gate.md). The same build then lays out alike in both arms; two builds still differ. Where the kernel or a sandbox refuses, the worker says so at setup.
    if (const int current = ::personality(0xffffffff); current != -1)
      ::personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE);
    const char* argv[] = {binary_.c_str(), "ab-worker", nullptr};
    ::execv(binary_.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(to[0]);
  ::close(from[1]);
  to_worker_ = to[1];
  from_fd_ = from[0];
  from_worker_ = MessageReader(from_fd_);
  std::optional<nlohmann::json> hello;
  try {
    hello = from_worker_.next(kHelloTimeout);
  } catch (const Interrupted&) {
    stop();
    throw;
  } catch (const MessageReader::TimedOut&) {
    stop();
    throw InputError(who() + " said nothing in " + std::to_string(kHelloTimeout.count()) +
                     " s: it is no readbench ab worker");
  } catch (const InputError&) {
    stop();
    throw InputError(who() + " printed something other than the ab protocol's hello: it is no "
                             "readbench ab worker");
  }
  if (!hello) ended("before its hello (a readbench without the ab command, or none at all)");
  const auto protocol = hello->find(kAbHelloKey);
  if (protocol == hello->end() || !protocol->is_number_integer()) {
    stop();
    throw InputError(who() + " printed something other than the ab protocol's hello");
  }
  version_ = hello->value("version", "?");
  git_commit_ = hello->value("git_commit", "?");
  if (protocol->get<int>() != kAbProtocol) {
    const int theirs = protocol->get<int>();
    stop();
    throw InputError(who() + ", readbench " + version_ + " (" + git_commit_ +
                     "), speaks ab protocol " + std::to_string(theirs) + "; this readbench " +
                     kVersion + " (" + kGitCommit + ") speaks " + std::to_string(kAbProtocol));
  }
}

void ArmProcess::ended(const std::string& when) {
  int status = 0;
  ::close(to_worker_);
  to_worker_ = -1;
  const pid_t done = ::waitpid(pid_, &status, 0);
  pid_ = -1;
  ::close(from_fd_);
  from_fd_ = -1;
  throw InputError(who() + " ended " + when +
                   (done > 0 ? " (" + status_text(status) + "; its stderr is above)" : ""));
}

nlohmann::json ArmProcess::ask(const nlohmann::json& request, std::chrono::milliseconds timeout) {
  try {
    write_message(to_worker_, request);
  } catch (const OutputError&) {
    ended("before it took a request");
  }
  std::optional<nlohmann::json> reply;
  try {
    reply = from_worker_.next(timeout);
  } catch (const MessageReader::TimedOut&) {
    stop();
    throw InputError(who() + " did not answer '" + request.value("op", "?") + "' within " +
                     std::to_string(timeout.count() / 1000) + " s");
  }
  if (!reply) ended("while it answered '" + request.value("op", "?") + "'");
  if (const auto e = reply->find("error"); e != reply->end())
    throw InputError(who() + ": " + (e->is_string() ? e->get<std::string>() : e->dump()));
  return *reply;
}

void ArmProcess::stop() {
  if (to_worker_ >= 0) {
    try {
      write_message(to_worker_, {{"op", "quit"}});
    } catch (const OutputError&) {
    }
    ::close(to_worker_);
    to_worker_ = -1;
  }
  if (from_fd_ >= 0) {
    ::close(from_fd_);
    from_fd_ = -1;
  }
  if (pid_ <= 0) return;
  // A worker in the middle of a sample ends it first; one that hangs is killed.
  for (int i = 0; i < 100; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

ArmProcess::~ArmProcess() {
  stop();
}

}  // namespace readbench
