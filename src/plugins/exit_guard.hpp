#pragma once
// A plugin that calls exit() (in its constructor, in a call being timed, in a library it uses)
// would end readbench with the status it chose, often 0, and with no table and no report: a CI
// job would read success. readbench itself never calls exit() or quick_exit() (main returns),
// so while a plugin's library is loaded in this process, hooks on both turn such an exit into
// one line on stderr and kPluginExitStatus. (_exit and a signal are not seen: a signal is a
// non-zero status already.)
#include <string>

namespace readbench {

// The exit status of a process that a plugin's exit() or quick_exit() ended (docs/plugins.md).
constexpr int kPluginExitStatus = 5;

// Counts `file`'s library as loaded from before dlopen (its constructors run there) until
// after dlclose (its destructors); the first call installs the hooks. Not thread-safe: plugins
// are loaded and unloaded by one thread.
void plugin_library_opening(const std::string& file);
void plugin_library_closed();

}  // namespace readbench
