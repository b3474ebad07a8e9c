#pragma once
// Timings handed to `readbench fit`: CSV with a `length,seconds` header (other columns
// ignored; with `backend` and `path` columns, as `readbench run --csv` writes, one series per
// backend/path), a JSON array of {length, seconds}, or a readbench report (each result
// re-fitted).
#include <optional>
#include <string>
#include <vector>

#include "core/power_law_fit.hpp"

namespace readbench {

struct PointSeries {
  std::string label;  // "backend/path" for a report's or a run CSV's results, else empty
  std::vector<TimedPoint> points;
  std::optional<double> kv_bytes_per_token;  // a report's, for the effective bandwidth
  std::optional<double> read_ceiling_gbps;
};

// Throws InputError naming `source` (the file the text came from) and the problem, with the line
// or element where there is one.
std::vector<PointSeries> parse_points(const std::string& text,
                                      const std::string& source = "the input");

}  // namespace readbench
