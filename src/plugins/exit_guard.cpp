#include "plugins/exit_guard.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/printable.hpp"

namespace readbench {

namespace {

std::atomic<int> g_loaded{0};
pid_t g_owner = 0;  // the process whose exit the hooks judge; a forked child's is its own
// The files loaded, for the message: a fixed buffer, which no destructor runs before the hooks.
char g_files[1024] = {};

[[noreturn]] void end_for_plugin(const char* how) {
  const std::string line = "readbench: a plugin ended the process with " + std::string(how) +
                           " (plugins loaded: " + printable(g_files) +
                           "); the run did not finish and wrote no report; exit status " +
                           std::to_string(kPluginExitStatus) + "\n";
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::_exit(kPluginExitStatus);
}

bool judged() {
  return g_loaded.load() > 0 && ::getpid() == g_owner;
}

void on_exit_hook(int status, void*) {
  if (judged()) end_for_plugin(("exit(" + std::to_string(status) + ")").c_str());
}

void on_quick_exit_hook() {
  if (judged()) end_for_plugin("quick_exit()");
}

}  // namespace

void plugin_library_opening(const std::string& file) {
  static const bool installed =
      ::on_exit(on_exit_hook, nullptr) == 0 && std::at_quick_exit(on_quick_exit_hook) == 0;
  (void)installed;  // without them an exit is not caught, which is what happens anyway
  g_owner = ::getpid();
  const std::size_t used = std::strlen(g_files);
  if (used + 2 + file.size() < sizeof g_files)
    std::snprintf(g_files + used, sizeof g_files - used, "%s%s", used == 0 ? "" : ", ",
                  file.c_str());
  g_loaded.fetch_add(1);
}

void plugin_library_closed() {
  if (g_loaded.fetch_sub(1) == 1) g_files[0] = '\0';
}

}  // namespace readbench
