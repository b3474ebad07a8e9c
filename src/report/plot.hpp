#pragma once
// `readbench plot`: a report as a log-log SVG plot, written by hand (no dependency).
// Each backend/path with timed points is a series: its points (the report's statistic), its
// fitted line t = c*L^p over the lengths the fit used, and the exponent beside the line.
#include <string>
#include <string_view>

#include "report/report_input.hpp"

namespace readbench {

// The whole SVG document. Throws InputError naming the report when no result has timed
// points, or when a point cannot go on a log axis (a length or time <= 0 or not finite).
std::string plot_svg(const Report& report);
// Text for SVG (XML) content and attribute values; control characters become spaces.
std::string svg_escaped(std::string_view s);

}  // namespace readbench
