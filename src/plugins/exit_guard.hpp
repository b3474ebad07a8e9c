#pragma once
// A plugin that calls exit() (in its constructor, in a call being timed, in a library it uses)
// would end readbench with the status it chose, often 0, and with no table and no report: a CI
// job would read success. readbench itself never calls exit() or quick_exit() (main returns),
// so while a plugin's library is loaded in this process, hooks on both turn such an exit into
// one line on stderr and kPluginExitStatus, after the command saves what it can (a run's partial
// report: PluginExitSaver). (_exit and a signal are not seen: a signal is a
// non-zero status already.)
#include <functional>
#include <string>

namespace readbench {

// The exit status of a process that a plugin's exit() or quick_exit() ended (docs/plugins.md).
constexpr int kPluginExitStatus = 5;

// Counts `file`'s library as loaded from before dlopen (its constructors run there) until
// after dlclose (its destructors); the first call installs the hooks. Not thread-safe: plugins
// are loaded and unloaded by one thread.
void plugin_library_opening(const std::string& file);
void plugin_library_closed();

// What a command saves when a plugin's exit ends the process: called once, from the hook, with
// how the process was ended ("exit(0)"); returns what it saved, for the message ("the partial
// report is in r.json"), or an empty string. Set for its lifetime; one at a time.
class PluginExitSaver {
 public:
  explicit PluginExitSaver(std::function<std::string(const std::string& how)> save);
  ~PluginExitSaver();
  PluginExitSaver(const PluginExitSaver&) = delete;
  PluginExitSaver& operator=(const PluginExitSaver&) = delete;

 private:
  std::function<std::string(const std::string&)> save_;
};

}  // namespace readbench
