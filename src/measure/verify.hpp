#pragma once
// Each path against the f64 reference on fresh random inputs, before any timing.
#include <string>
#include <vector>

#include "measure/results.hpp"

namespace readbench {

// The record of a check of `p` on `w`, before its result: path, length, batch, dtypes and the
// tolerance. failed_check: one whose call failed with `failure` (error infinite, not passed).
CheckResult check_of(const Workload& w, const Path& p);
CheckResult failed_check(const Workload& w, const Path& p, const std::string& failure);

// Builds the workload, computes its reference, hands it to the backend and checks `paths`.
std::vector<CheckResult> check_paths(Backend& backend, const Workload& w,
                                     const std::vector<Path>& paths);

// Lengths a sweep verifies at: its shortest, one past a block (a partial block), and its
// longest while the reference stays cheap (else the longest affordable, odd so it ends
// mid-block).
std::vector<std::int64_t> verification_lengths(const SweepConfig& c);

}  // namespace readbench
