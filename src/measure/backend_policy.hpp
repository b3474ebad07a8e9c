#pragma once
// Which backends a `--backend` choice opens, and what becomes of one that cannot run: under an
// explicit choice (cpu, cuda) that is the user's error, reported before anything else; under
// auto or all it is recorded and the other backends go on. `run` and `verify` both follow it
// from here.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/vocabulary.hpp"
#include "measure/backend_choice.hpp"

namespace readbench {

// The backends a choice names, in order: "cpu", "cuda".
std::vector<std::string> backend_names(BackendChoice c);

// Opens a backend by name; tests hand the sweep factories of fakes.
using BackendFactory = std::function<std::unique_ptr<Backend>(const std::string& name)>;
BackendFactory default_backend_factory(int threads, int device);

// Throws InputError naming a --threads or --device below 0.
void validate_backend_options(int threads, int device);

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

}  // namespace readbench
