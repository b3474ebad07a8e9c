#pragma once
// `readbench plot` of an ab report: both arms' curves (plot.hpp) above the head/base ratio
// against L, each pairing's per-length ratios with their 95% band, the line of equality and the
// cost bound.
#include <string>

#include "report/ab_report.hpp"

namespace readbench {

std::string plot_ab_svg(const AbReport& report);

// Both arms' results in one report, named "base <backend>" and "head <backend>".
Report arms_as_one_report(const AbReport& report);

}  // namespace readbench
