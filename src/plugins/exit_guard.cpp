#include "plugins/exit_guard.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "core/printable.hpp"

namespace readbench {

namespace {

std::atomic<int> g_loaded{0};
pid_t g_owner = 0;  // the process whose exit the hooks judge; a forked child's is its own
// The files loaded, for the message: a fixed buffer, which no destructor runs before the hooks.
char g_files[1024] = {};

// The saver in force, if any (PluginExitSaver).
const std::function<std::string(const std::string&)>* g_saver = nullptr;

// Set by the first thread the hooks end the process for.
std::atomic<bool> g_ending{false};
thread_local bool t_ending = false;

// What the saver saved, or why it saved nothing.
std::string save_for_exit(const std::string& how) {
  if (g_saver == nullptr) return "";
  try {
    return (*g_saver)(how);
  } catch (const std::exception& e) {
    return std::string("the partial report could not be written: ") + e.what();
  } catch (...) {
    return "the partial report could not be written";
  }
}

[[noreturn]] void end_for_plugin(const char* how) {
  // One thread ends the process. Another that exits meanwhile (the same plugin timed on another
  // device's thread) waits here for it: glibc lets it run the next exit handler while ours runs,
  // and past this hook it would reach the static destructors, or _exit with the plugin's status.
  // The hooks are installed twice so that such a thread meets a second copy first. An exit from
  // within the saver, on the thread already ending, ends at once without saving.
  const bool nested = t_ending;
  if (!nested && g_ending.exchange(true))
    for (;;) ::pause();
  t_ending = true;
  const std::string saved = nested ? "" : save_for_exit(how);
  const std::string line = "readbench: a plugin ended the process with " + std::string(how) +
                           " (plugins loaded: " + printable(g_files) + "); the run did not finish" +
                           (saved.empty() ? " and wrote no report" : ": " + printable(saved)) +
                           "; exit status " + std::to_string(kPluginExitStatus) + "\n";
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
      ::on_exit(on_exit_hook, nullptr) == 0 && ::on_exit(on_exit_hook, nullptr) == 0 &&
      std::at_quick_exit(on_quick_exit_hook) == 0 && std::at_quick_exit(on_quick_exit_hook) == 0;
  (void)installed;  // without them an exit is not caught, which is what happens anyway
  g_owner = ::getpid();
  const std::size_t used = std::strlen(g_files);
  if (used + 2 + file.size() < sizeof g_files)
    std::snprintf(g_files + used, sizeof g_files - used, "%s%s", used == 0 ? "" : ", ",
                  file.c_str());
  g_loaded.fetch_add(1);
}

PluginExitSaver::PluginExitSaver(std::function<std::string(const std::string&)> save)
    : save_(std::move(save)) {
  g_saver = &save_;
}

PluginExitSaver::~PluginExitSaver() {
  g_saver = nullptr;
}

void plugin_library_closed() {
  if (g_loaded.fetch_sub(1) == 1) g_files[0] = '\0';
}

}  // namespace readbench
