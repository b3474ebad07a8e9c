#pragma once
// The main job: for each backend, measure its ceilings, verify each path, time each path at
// each length, fit, and compute speedups.
#include <optional>

#include "measure/backend_opening.hpp"
#include "measure/results.hpp"

namespace readbench {

// Throws InputError on a bad configuration, and when a backend asked for explicitly
// (`--backend cpu` or `cuda`) cannot run or fails. Under `auto` or `all` a backend that cannot
// run is recorded as unavailable and one that fails midway as failed, with the reason, and the
// other backends' results still come. A path that fails verification is recorded as failed,
// untimed. A signal (core/interrupt.hpp) stops the sweep at the next safe point: the result
// keeps every point measured before it, fitted where there are enough, marks the grids it cut
// short `interrupted`, carries the signal, and starts no further backend.
RunResult run_sweep(const SweepConfig& config, const Progress& progress = {},
                    const BackendFactory& factory = {});

// What the sweep under way had measured, for a report written while a plugin's exit() ends the
// process (plugins/exit_guard.hpp): the backends finished before, and those of the thread whose
// call this is (or of the one thread sweeping, for an exit from a plugin's own thread), the one
// being timed with its grids cut short `interrupted` and fitted where they can be. Devices swept
// on other threads at the same time are left out (their results are being written as this
// runs). nullopt outside run_sweep.
std::optional<RunResult> sweep_so_far();

// Replicas of the per-call inputs for one timed point: enough that a batch of calls after a
// flush keeps reading untouched data, without building more pool than that needs.
int replicas_for(std::int64_t bytes_per_call, std::int64_t cache_bytes, double resolution_s,
                 double read_gbps);
// Replicas of `w` within the pool budget (8 GiB of K/V pools), at most 256.
int max_replicas(const Workload& w);
// replicas_for a cold workload `w`, within the pool budget (8 GiB of K/V pools, whole blocks
// counted: a block far longer than the history still takes its whole size in every replica).
int cold_replicas(const Workload& w, std::int64_t cache_bytes, double resolution_s,
                  double read_gbps);

// The CUDA devices of `run` slower than a sibling at a path and length (SlowDevice).
std::vector<SlowDevice> slow_devices(const RunResult& run);

// Throws InputError naming the first invalid option.
void validate(const SweepConfig& c);
// The plugin part of validate: distinct names, every plugin path loaded, the run's dtypes taken,
// and each plugin's backend among those --backend opens.
void validate_plugins(const SweepConfig& c);

}  // namespace readbench
