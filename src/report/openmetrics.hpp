#pragma once
// Reports as OpenMetrics text (the Prometheus exposition format's successor, which the node
// exporter's textfile collector and Prometheus read): one gauge family per figure, in base units
// named in the metric (seconds, bytes per second, a ratio), one sample per timed result, labelled
// with the host, device, model, backend, path, shape and dtypes. Ends with "# EOF".
#include <string>
#include <vector>

#include "report/report_input.hpp"

namespace readbench {

// Every timed result with a fit of every report, in order. A result without a read ceiling (a
// report that measured none) has no ceiling or fraction sample.
std::string openmetrics_text(const std::vector<const Report*>& reports);
std::string openmetrics_text(const Report& report);

// A label value as OpenMetrics writes one: backslash, double quote and newline escaped.
std::string openmetrics_label_value(const std::string& s);

}  // namespace readbench
