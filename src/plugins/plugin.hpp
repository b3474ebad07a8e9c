#pragma once
// Reads from other people's shared libraries (include/readbench/plugin.h): loading one, asking
// what it accepts, and calling it on a backend's buffers. A loaded plugin is a path of the sweep
// ("plugin:NAME") on the backend it names, verified and timed like the built-in two.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/shape.hpp"
#include "readbench/plugin.h"

namespace readbench {

// A plugin's call that returned an error (or a plugin that was found unsafe to call): the path
// fails with this message; the backend and the other paths go on.
class PluginFailure : public BackendError {
 public:
  using BackendError::BackendError;
};

enum class PoolLayout { nhd, hnd };
std::string_view to_string(PoolLayout l);  // "nhd" [blocks, S, Hkv, D] or "hnd" [blocks, Hkv, S, D]

// Seconds a plugin may take to load, and its checks to run, in the child process that does
// both first (--plugin-timeout).
constexpr double kPluginCheckTimeout = 300;

class Plugin {
 public:
  // Checks that `file` is an ELF shared library of this machine (plugins/elf_check.hpp), loads
  // it in a child process first (plugins/run_apart.hpp), then dlopens it here and checks its
  // description. From the first load on, fd 1 points at stderr (plugins/stdout_diversion.hpp)
  // and an exit() while the library is loaded ends the process with kPluginExitStatus
  // (plugins/exit_guard.hpp). Throws InputError naming the file: not a library of this machine,
  // loading it crashed, exited or took more than `timeout_s` in the child, it cannot be loaded,
  // lacks readbench_plugin, was built for another ABI version (both named), or describes itself
  // badly (name, backend, masks, functions).
  static std::shared_ptr<const Plugin> load(const std::string& file,
                                            double timeout_s = kPluginCheckTimeout);

  const std::string& file() const { return file_; }
  const std::string& name() const { return name_; }
  std::string path_name() const { return "plugin:" + name_; }
  std::string_view backend() const;  // the backend kind it runs on: "cpu" or "cuda"
  std::uint32_t abi_version() const { return api_->abi_version; }
  const rb_plugin& api() const { return *api_; }

  // The pool layout readbench builds for it: nhd where it takes that, else hnd.
  PoolLayout layout() const;
  // Throws InputError naming the plugin and the type when it does not take q (and the output)
  // in `q` with K/V in `kv`.
  void require_dtypes(DType q, DType kv) const;

 private:
  // dlopen and the description's checks; `guard_exits`: count it for the exit hooks (not in
  // the child that loads it first, whose exit is its parent's to judge).
  static std::shared_ptr<const Plugin> load_here(const std::string& file, bool guard_exits);

  std::string file_, name_;
  std::shared_ptr<void> library_;  // dlclose'd when the last user is gone
  const rb_plugin* api_ = nullptr;
};

using Plugins = std::vector<std::shared_ptr<const Plugin>>;

// Throws InputError when two plugins share a name, naming both files.
void require_distinct_names(const Plugins& plugins);
// Plugin::load of each file, then require_distinct_names.
Plugins load_plugins(const std::vector<std::string>& files, double timeout_s = kPluginCheckTimeout);

// The plugin's description of a workload's calls on `device` (-1: the CPU) with `threads`.
rb_problem plugin_problem(const Workload& w, PoolLayout layout, int device, int threads);

// One pool [num_blocks, S, Hkv, D] of `w` rearranged as [num_blocks, Hkv, S, D]: the same
// values, so the f64 reference of the original layout is the reference of this one.
AlignedBuffer head_major_copy(const AlignedBuffer& pool, const Workload& w);

// A plugin prepared for one workload: prepare() on construction, release() on destruction.
// Construction never throws for the plugin's own refusal: failure() then says why, and run()
// throws PluginFailure with it.
class PreparedPlugin {
 public:
  PreparedPlugin(std::shared_ptr<const Plugin> plugin, const rb_problem& problem);
  ~PreparedPlugin();
  PreparedPlugin(const PreparedPlugin&) = delete;
  PreparedPlugin& operator=(const PreparedPlugin&) = delete;

  const Plugin& plugin() const { return *plugin_; }
  const std::string& failure() const { return failure_; }
  // Marks it failed (releasing its state): `why` follows the path name, "left a CUDA error...".
  void fail(const std::string& why);
  void run(const rb_call& call) const;  // throws PluginFailure

 private:
  std::shared_ptr<const Plugin> plugin_;
  void* state_ = nullptr;
  std::string failure_;
};

}  // namespace readbench
