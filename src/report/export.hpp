#pragma once
// `readbench export`: a report in the formats dashboards ingest. Only results with
// timed points are exported; unavailable and failed ones are skipped. Times are in nanoseconds
// to 9 significant digits (as in the CSV report).
#include "report/fit_json.hpp"
#include "report/report_input.hpp"

namespace readbench {

// Every benchmark name below ends with the set-up in brackets, " [<workload>, <threads or GPU
// model>]" ("cpu/fused/L=64 [bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, 2 threads]"), so
// set-ups never share a dashboard series. Costs are exported only where resolved (95% CI above
// zero): never a negative cost or bound. The report's quality verdict goes with every entry.
//
// Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format/): an
// object keyed by benchmark name, each an object of measures {value, lower_value,
// upper_value}.
//  - "<backend>/<path>", for a result with a fit: `exponent` (p, lower/upper the 95% CI where there
//  is
//    one), `per_token_ns` (t(L_max)/L_max), `asymptote_reached` (1 or 0),
//    `marginal_ns_per_token` and `fixed_ns` where resolved, `contended` (1 for a contended
//    report, else 0).
//  - "<backend>/<path>/L=<length>", per timed point (with `contended`): `latency` (Bencher's
//  built-in measure, in
//    ns) with value the report's statistic, lower_value the min and upper_value the median
//    (so the value is one of its bounds: the min under --statistic min, the median under
//    median).
// Throws InputError naming the report when nothing in it was timed.
Json export_bmf(const Report& r);

// github-action-benchmark's customSmallerIsBetter input: an array of {name, unit, value,
// range (optional), extra}.
//  - "<backend>/<path> L=<length>", unit ns, per timed point: the report's statistic.
//  - "<backend>/<path> marginal cost", unit ns/token, per fit whose b is positive.
//  - "<backend>/<path> per-token cost", unit ns/token, per fit.
//  - "<backend>/<path> exponent", unit "exponent", per fit: p, smaller being better here too,
//    with range "± <CI half-width>" where there is a CI. The action alerts on the ratio of a
//    value to the previous one, which reads well for p near 1 or above (1 -> 2 is a doubling)
//    but not for p near or below 0; `readbench check` is the exponent's proper gate.
// Throws InputError naming the report when nothing in it was timed.
Json export_gab(const Report& r);

}  // namespace readbench
