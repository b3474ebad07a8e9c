#pragma once
// The CSV report: one row per timed point, with the fit's exponent and per-token cost repeated
// on each row so a spreadsheet needs no join.
#include <string>

#include "measure/results.hpp"

namespace readbench {

// `host` names the machine (describe_host's hostname) on every row.
std::string build_csv(const RunResult& run, const std::string& host = "");

}  // namespace readbench
