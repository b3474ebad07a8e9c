#pragma once
// The JSON report, described by schemas/readbench-report.schema.json.
#include <string>

#include "measure/results.hpp"
#include "report/fit_json.hpp"
#include "report/machine_info.hpp"
#include "report/schema_version.hpp"

namespace readbench {

// created_at: an RFC 3339 UTC timestamp.
Json build_report(const RunResult& run, const HostInfo& host, const std::string& created_at);
// What every report of readbench's starts with: schema_version, complete (and the signal that
// stopped it, 0 for none, or how a plugin ended the process), tool, created_at and the host's
// machine object.
Json report_header(int signal, const HostInfo& host, const std::string& created_at,
                   const std::string& plugin_exit = {});

// The current time as RFC 3339 UTC, e.g. "2026-11-29T10:31:40Z".
std::string utc_timestamp();

}  // namespace readbench
