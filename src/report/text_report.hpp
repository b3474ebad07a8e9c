#pragma once
// Human-readable output: the run table and fit summaries on stdout.
#include <string>

#include "core/fit.hpp"
#include "measure/results.hpp"

namespace readbench {

// Exponent with CI, regime, per-token cost, r2, segments and, when it applies, the warning
// that the sweep has not reached its asymptote.
std::string format_fit(const FitResult& f);

std::string format_run(const RunResult& run);

}  // namespace readbench
