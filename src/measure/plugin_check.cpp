#include "measure/plugin_check.hpp"

#include <algorithm>

#include "measure/verify.hpp"
#include "plugins/run_apart.hpp"

namespace readbench {

namespace {

// In the child: the plugin's checks. Whatever they find (a failed check, an unavailable
// backend) the sweep finds again in the parent and reports: the child only has to come back.
// What it returns is a failure that would spoil this process too, or nothing.
std::string check_in_child(const SweepConfig& c, const std::shared_ptr<const Plugin>& plugin) {
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
    // path) is the plugin's failure.
    return std::string("failed its check: ") + e.what();
  } catch (...) {
    return "failed its check with an exception that is not a std::exception";
  }
  return "";
}

}  // namespace

std::map<std::string, std::string> check_plugins_apart(const SweepConfig& c, double timeout_s) {
  std::map<std::string, std::string> out;
  for (const auto& plugin : c.plugins) {
    if (std::find(c.paths.begin(), c.paths.end(), Path::of_plugin(plugin->name())) == c.paths.end())
      continue;
    const ChildEnd end = run_apart([&] { return check_in_child(c, plugin); }, timeout_s);
    if (end.how == ChildEnd::How::interrupted) break;
    const std::string apart = " during its check (run in a separate process); not called again";
    if (end.how != ChildEnd::How::returned)
      out[plugin->name()] = plugin->path_name() + " " + how_it_ended(end, timeout_s) + apart;
    else if (!end.reply.empty())
      out[plugin->name()] = plugin->path_name() + " " + end.reply + apart;
  }
  return out;
}

}  // namespace readbench
