#pragma once
// Someone else's code run first in a child process: a crash, an exit or a hang there ends the
// child, not readbench, and the parent says which it was. Loading a plugin (its constructors
// run inside dlopen) and its first checks go through here before this process trusts it.
#include <functional>
#include <string>

namespace readbench {

// How a child given some work ended.
struct ChildEnd {
  enum class How {
    returned,     // the work returned; `reply` is what it returned
    exited,       // the process ended before the work returned; `code` is its exit status
    signaled,     // killed by signal `code` (a crash)
    timed_out,    // still running after the time allowed; killed
    interrupted,  // a signal asked readbench to stop (core/interrupt.hpp); killed
  };
  How how = How::returned;
  std::string reply;
  int code = 0;
};

// Forks; the child points fd 1 at stderr (what the work prints never reaches readbench's
// stdout), closes readbench's own stdout (plugins/stdout_diversion.hpp), takes the default
// action of crash signals, is killed if this process dies, runs `work` and sends back what it
// returns (up to 4 KiB; `work` catches what it throws). The parent waits at most `timeout_s`.
// Call it before this process starts threads or initialises CUDA: fork keeps only this thread.
// Throws BackendError when pipe or fork fail.
ChildEnd run_apart(const std::function<std::string()>& work, double timeout_s);

// "crashed (SIGSEGV)", "ended the process (exit status 0)", "did not finish within 2 s":
// what a child that did not return did, after the plugin's name.
std::string how_it_ended(const ChildEnd& end, double timeout_s);

}  // namespace readbench
