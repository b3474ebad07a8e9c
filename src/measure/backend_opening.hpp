#pragma once
// Which backends a `--backend` choice opens, and what becomes of one that cannot run: under an
// explicit choice (cpu, cuda) that is the user's error, reported before anything else; under
// auto or all it is recorded and the other backends go on. `run` and `verify` both follow it
// from here.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "core/report_words.hpp"
#include "measure/backend_word.hpp"

namespace readbench {

// The backends a choice names, in the registry's order (backends/registry.hpp): "cpu", then
// "cuda" for one CUDA device, or "cuda:N" for each of several (`devices`, increasing).
std::vector<std::string> backend_names(BackendChoice c, const std::vector<int>& devices = {0});

// Whether `name` is one of several devices of a backend ("cuda:N"); its device index.
bool is_device_backend(const std::string& name);
int device_of(const std::string& name);

// Opens a backend by name; tests hand the sweep factories of fakes.
using BackendFactory = std::function<std::unique_ptr<Backend>(const std::string& name)>;
BackendFactory default_backend_factory(int threads, const std::vector<int>& devices);

// Throws InputError naming a --threads or --device below 0.
void validate_backend_options(int threads, int device);

// --device names CUDA devices: given with --backend cpu, which has none, it would be recorded
// in the report as the device the run used. Throws InputError then.
void check_device_applies(BackendChoice choice, bool device_given);

// --device: an index, an increasing list of indices ("0,1"), or "all" (empty: every device the
// process sees). Throws InputError naming the text.
std::vector<int> parse_devices(std::string_view text);
// The devices of `devices` with "all" resolved: every visible one, or device 0 where none is
// (opening it then says why).
std::vector<int> resolve_devices(const std::vector<int>& devices);

// Opens each backend of `choice` with `open` and hands it to `use`, which returns false to open
// no further backend. A backend that is unavailable (BackendUnavailable), fails (BackendError)
// or refuses the workload's shape (InputError: a head dim its kernels lack), while being opened
// or used, throws InputError "--backend NAME cannot run: WHY" under an explicit choice and goes
// to `skipped` (unavailable or failed, and why) under auto or all. Anything else, such as a
// signal's Interrupted or a failed write to stdout, passes through.
void for_each_backend(BackendChoice choice, const BackendFactory& open,
                      const std::function<bool(const std::string& name, Backend&)>& use,
                      const std::function<void(const std::string& name, Status status,
                                               const std::string& why)>& skipped);
// The same over the backends `names` (of backend_names(choice, ...)).
void for_each_backend(BackendChoice choice, const std::vector<std::string>& names,
                      const BackendFactory& open,
                      const std::function<bool(const std::string& name, Backend&)>& use,
                      const std::function<void(const std::string& name, Status status,
                                               const std::string& why)>& skipped);

}  // namespace readbench
