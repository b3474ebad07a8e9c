#pragma once
// The main job: for each backend, measure its ceilings, verify each path, time each path at
// each length, fit, and compute speedups (SPEC §2-§4).
#include "measure/results.hpp"

namespace readbench {

// Throws InputError on a bad configuration, and when `--backend cuda` was asked for
// explicitly but cannot run. A path that fails verification is recorded as failed, untimed.
RunResult run_sweep(const SweepConfig& config, const Progress& progress = {});

// Replicas of the per-call inputs for one timed point: enough that a batch of calls after a
// flush keeps reading untouched data, without building more pool than that needs.
int replicas_for(std::int64_t bytes_per_call, std::int64_t cache_bytes, double resolution_s,
                 double read_gbps);

// Throws InputError naming the first invalid option.
void validate(const SweepConfig& c);

}  // namespace readbench
