#pragma once
// Text formatting shared by the report writers (table, check, compare, export, plot).
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace readbench
