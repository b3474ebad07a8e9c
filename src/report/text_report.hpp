#pragma once
// Human-readable output: the run table and fit summaries on stdout.
#include <string>

#include <vector>

#include "core/asymptote_fit.hpp"
#include "measure/results.hpp"

namespace readbench {

// Exponent with CI and regime, fixed and marginal cost with CIs and the effective bandwidth,
// the fitted region, per-token cost, r2, each point's length-dependent share (`points` in
// the order the fit was given them), segments, and whether the asymptote was reached.
std::string format_fit(const ReadFit& f, const std::vector<TimedPoint>& points);

std::string format_run(const RunResult& run);

}  // namespace readbench
