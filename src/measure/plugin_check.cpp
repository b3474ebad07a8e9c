#include "measure/plugin_check.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/interrupt.hpp"
#include "core/strprintf.hpp"
#include "measure/verify.hpp"

namespace readbench {

namespace {

constexpr char kDone = 'd';  // what a child that returned from every check writes

// In the child: the plugin's checks, then kDone on `fd`. Whatever they find (a failed check, an
// unavailable backend) the sweep finds again in the parent and reports: the child only has to
// come back.
[[noreturn]] void check_in_child(const SweepConfig& c, const std::shared_ptr<const Plugin>& plugin,
                                 int fd) {
  std::string message;
  // A crash is the plugin's: the signal ends the child and the parent names it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  try {
    const std::unique_ptr<Backend> backend =
        plugin->backend() == "cuda" ? make_cuda_backend(c.devices.empty() ? 0 : c.devices.front())
                                    : make_cpu_backend(c.threads);
    backend->add_plugin(plugin);
    Workload w = c.workload(0);
    w.seed ^= 0x5eedc0de;  // the sweep's check inputs
    for (std::int64_t len : verification_lengths(c)) {
      w.length = len;
      check_paths(*backend, w, {Path::of_plugin(plugin->name())});
    }
  } catch (const BackendUnavailable&) {  // the parent reports it as it is
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    // Anything else (a CUDA error a plugin caused, which spoils the device context for every
    // path) is the plugin's failure: its message follows kDone.
    message = std::string("failed its check: ") + e.what();
  } catch (...) {
    message = "failed its check with an exception that is not a std::exception";
  }
  std::string reply(1, kDone);
  reply += message;
  const ssize_t written = ::write(fd, reply.data(), reply.size());
  ::_exit(written == ssize_t(reply.size()) ? 0 : 1);
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

}  // namespace

std::map<std::string, std::string> check_plugins_apart(const SweepConfig& c, double timeout_s) {
  std::map<std::string, std::string> out;
  for (const auto& plugin : c.plugins) {
    if (std::find(c.paths.begin(), c.paths.end(), Path::of_plugin(plugin->name())) == c.paths.end())
      continue;
    int fds[2];
    if (::pipe(fds) != 0) throw BackendError("cannot check plugins apart: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]), ::close(fds[1]);
      throw BackendError("cannot check plugins apart: fork failed");
    }
    if (pid == 0) {
      ::close(fds[0]);
      check_in_child(c, plugin, fds[1]);
    }
    ::close(fds[1]);
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    bool ended = false, timed_out = false;
    while (!ended) {
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        ended = true;
        break;
      }
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (interrupt_signal() != 0 || waited > timeout_s) {
        timed_out = interrupt_signal() == 0;
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // What the child wrote (kDone, then a message where its check failed in a way that would
    // spoil this process too). Non-blocking: a process the plugin started may hold the pipe.
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
    std::string reply;
    char buf[512];
    for (ssize_t n; ended && (n = ::read(fds[0], buf, sizeof buf)) > 0;)
      reply.append(buf, std::size_t(n));
    ::close(fds[0]);
    const bool came_back = !reply.empty() && reply[0] == kDone;
    for (char& ch : reply)
      if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
    if (interrupt_signal() != 0) break;
    const std::string what = plugin->path_name() + " ";
    const std::string apart = " during its check (run in a separate process); not called again";
    if (timed_out)
      out[plugin->name()] = what + "did not finish" + apart.substr(0, apart.find(';')) +
                            " within " + strprintf("%g", timeout_s) + " s; not called again";
    else if (WIFSIGNALED(status))
      out[plugin->name()] = what + "crashed (" + signal_text(WTERMSIG(status)) + ")" + apart;
    else if (came_back && reply.size() > 1)
      out[plugin->name()] = what + reply.substr(1) + apart;
    else if (!came_back)
      out[plugin->name()] = what + "ended the process (exit status " +
                            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" +
                            apart;
  }
  return out;
}

}  // namespace readbench
