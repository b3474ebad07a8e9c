#pragma once
// A plugin is someone else's code in readbench's process: one that crashes takes the run (and
// the report) with it, one that hangs never returns. So before the sweep calls a plugin, its
// checks run once in a child process: a plugin that crashes or hangs there is recorded failed
// and never called in this process. What this does not protect against: a plugin that only
// crashes or hangs on a later call (a longer history, a timing batch); docs/plugins.md says so.
#include <map>
#include <string>

#include "measure/results.hpp"

namespace readbench {

// Runs the checks of each plugin of `c` that its paths name (the sweep's verification lengths,
// on the plugin's backend: the CPU with c.threads, or the first of c.devices) in a child
// process, one plugin at a time. Returns, for each plugin that crashed, ended the child or did
// not finish within `timeout_s`, why, in words for the report. A signal (core/interrupt.hpp)
// ends the wait: the child is killed and the plugins not yet checked are left out of the result.
// Call it before this process starts threads or initialises CUDA: fork keeps only this thread.
std::map<std::string, std::string> check_plugins_apart(const SweepConfig& c, double timeout_s);

}  // namespace readbench
