#include "report/export.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "report/format.hpp"

namespace readbench {

namespace {

// 9 significant digits: 1e-6 s reads 1000 ns, not 999.9999999999999.
double ns(double seconds) {
  return std::strtod(strprintf("%.9g", seconds * 1e9).c_str(), nullptr);
}

std::vector<const ReportResult*> timed_results(const Report& r) {
  std::vector<const ReportResult*> out;
  for (const ReportResult& res : r.results)
    if (res.timed()) out.push_back(&res);
  if (out.empty()) throw InputError(r.source + ": nothing to export: no result has timed points");
  return out;
}

// The set-up a result's numbers belong to, as its benchmark names carry it, so that runs of
// different set-ups never share a series on a dashboard: the workload (dtypes, batch, heads,
// head dim, block size, cache) and, on the CPU, the threads; on a GPU its model.
std::string setup_of(const Report& r, const ReportResult& res) {
  std::string out = r.config;
  if (res.backend == "cpu") {
    if (r.threads > 0)
      out += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  } else if (const std::string gpu = r.gpu_model(res.backend); !gpu.empty()) {
    out += ", " + gpu;
  }
  return out;
}

// "cpu/fused/L=64 [bf16, B=1 ..., 2 threads]": the label, what is measured, then the set-up.
std::string name_of(const Report& r, const ReportResult& res, const std::string& what = "") {
  return res.label() + what + " [" + setup_of(r, res) + "]";
}

// A cost's measure: its value and 95% CI in ns, the lower bound no lower than 0 (a cost is not
// negative; the report keeps the fitted numbers). None where the cost is not resolved.
std::optional<Json> cost_measure(double value_s, std::optional<double> low_s,
                                 std::optional<double> high_s) {
  if (!(value_s > 0) || !low_s || !(*low_s > 0)) return std::nullopt;
  return Json{{"value", ns(value_s)}, {"lower_value", ns(*low_s)}, {"upper_value", ns(*high_s)}};
}

}  // namespace

Json export_bmf(const Report& r) {
  Json out = Json::object();
  // The quality verdict, with every benchmark: 1 where the machine's other work is in the
  // numbers (a contended report), 0 where it is clean.
  const Json contended = {{"value", r.quality == QualityVerdict::contended ? 1 : 0}};
  for (const ReportResult* res : timed_results(r)) {
    if (res->fit) {
      const FitResult& f = res->fit->power;
      const AffineFit& a = res->fit->affine;
      Json exponent = {{"value", f.exponent}};
      if (f.ci95_low) {
        exponent["lower_value"] = *f.ci95_low;
        exponent["upper_value"] = *f.ci95_high;
      }
      Json measures = {{"exponent", exponent},
                       {"asymptote_reached", {{"value", res->fit->asymptote_reached ? 1 : 0}}},
                       {"contended", contended},
                       {"per_token_ns", {{"value", ns(f.per_token_s)}}}};
      if (auto m = cost_measure(a.marginal_s, a.marginal_ci95_low, a.marginal_ci95_high))
        measures["marginal_ns_per_token"] = *m;
      if (auto m = cost_measure(a.fixed_s, a.fixed_ci95_low, a.fixed_ci95_high))
        measures["fixed_ns"] = *m;
      out[name_of(r, *res)] = std::move(measures);
    }
    for (const ReportPoint& p : res->points)
      out[name_of(r, *res, strprintf("/L=%.0f", p.length))] = {{"latency",
                                                                {{"value", ns(p.seconds)},
                                                                 {"lower_value", ns(p.min_s)},
                                                                 {"upper_value", ns(p.median_s)}}},
                                                               {"contended", contended}};
  }
  return out;
}

Json export_gab(const Report& r) {
  Json out = Json::array();
  // Every entry says where its numbers came from: a contended report's are the machine's too.
  const std::string quality =
      r.quality == QualityVerdict::contended
          ? "; CONTENDED report: the machine's other work is in these numbers"
          : "";
  for (const ReportResult* res : timed_results(r)) {
    const auto name = [&](const std::string& what) { return name_of(r, *res, what); };
    for (const ReportPoint& p : res->points)
      out.push_back(
          {{"name", name(strprintf(" L=%.0f", p.length))},
           {"unit", "ns"},
           {"value", ns(p.seconds)},
           {"extra", strprintf("statistic %s; min %.9g ns, median %.9g ns; %.3g GB/s of every "
                               "byte a call moves",
                               std::string(to_string(r.statistic)).c_str(), ns(p.min_s),
                               ns(p.median_s), p.gbps) +
                         quality}});
    if (!res->fit) continue;
    const FitResult& f = res->fit->power;
    const AffineFit& a = res->fit->affine;
    if (a.marginal_s > 0)
      out.push_back(
          {{"name", name(" marginal cost")},
           {"unit", "ns/token"},
           {"value", ns(a.marginal_s)},
           {"extra", strprintf("b of t = t0 + b*L over %d points; fixed cost ", a.n_points) +
                         format_fixed_cost(a, true) + quality}});
    out.push_back(
        {{"name", name(" per-token cost")},
         {"unit", "ns/token"},
         {"value", ns(f.per_token_s)},
         {"extra",
          strprintf("t(L)/L at L=%.0f, the longest fitted length", f.longest_length) + quality}});
    Json exponent = {{"name", name(" exponent")}, {"unit", "exponent"}, {"value", f.exponent}};
    std::string extra = strprintf("t = c*L^p over %d points", f.n_points);
    if (res->fit->fit_from > 0) extra += strprintf(" with L >= %.0f", res->fit->fit_from);
    if (f.ci95_low) {
      exponent["range"] = strprintf("± %.3g", (*f.ci95_high - *f.ci95_low) / 2);
      extra += strprintf("; 95%% CI [%.3f, %.3f]", *f.ci95_low, *f.ci95_high);
    } else {
      extra += "; no CI";
    }
    exponent["extra"] = extra + "; regime " + std::string(to_string(f.regime)) +
                        (res->fit->asymptote_reached ? "" : "; asymptote not reached") + quality;
    out.push_back(std::move(exponent));
  }
  return out;
}

}  // namespace readbench
