#pragma once
// The CSV report: one row per timed point, with the fit's exponent and per-token cost repeated
// on each row so a spreadsheet needs no join.
#include <string>

#include "measure/results.hpp"

namespace readbench {

std::string build_csv(const RunResult& run);

}  // namespace readbench
