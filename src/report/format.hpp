#pragma once
// Text formatting shared by the report writers (table, check, compare, export, plot).
#include <optional>
#include <string>
#include <string_view>

#include "core/marginal_cost_fit.hpp"
#include "core/strprintf.hpp"

namespace readbench {

// Line breaks as spaces: a reason or note from a report, kept to one line.
std::string one_line(std::string_view s);

// A markdown table cell: on one line, a pipe escaped so it does not end the cell.
std::string markdown_cell(std::string_view s);

// "500 ns", "2 us", "10 ms": a time with the unit chosen for its size (micro as "us", or
// as "µs" where the output is UTF-8 anyway).
std::string format_seconds(double s, bool micro_sign = false);

// "0.812 [0.688, 0.930]" with `decimals` places, or "0.812" where there is no CI.
std::string exponent_with_ci(double p, std::optional<double> low, std::optional<double> high,
                             int decimals);

// A fixed cost t0 as every reader shows it: "4.1 us [3.9 us, 4.3 us]" where its 95% CI lies
// above zero; "≈ 0 (not resolved, CI -22 us .. 15 us)" where the CI holds zero or there is none
// (the line cannot tell it from no fixed cost); "none: t0 = -5 us, CI wholly below 0, the line
// undercuts zero" where the CI lies below zero. Never a bare negative cost.
std::string format_fixed_cost(const AffineFit& a, bool micro_sign = false);

}  // namespace readbench
