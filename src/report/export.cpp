#include "report/export.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>
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

}  // namespace

Json export_bmf(const Report& r) {
  Json out = Json::object();
  for (const ReportResult* res : timed_results(r)) {
    if (res->fit) {
      const FitResult& f = res->fit->power;
      const AffineFit& a = res->fit->affine;
      Json exponent = {{"value", f.exponent}};
      if (f.ci95_low) {
        exponent["lower_value"] = *f.ci95_low;
        exponent["upper_value"] = *f.ci95_high;
      }
      Json marginal = {{"value", ns(a.marginal_s)}};
      if (a.marginal_ci95_low) {
        marginal["lower_value"] = ns(*a.marginal_ci95_low);
        marginal["upper_value"] = ns(*a.marginal_ci95_high);
      }
      Json fixed = {{"value", ns(a.fixed_s)}};
      if (a.fixed_ci95_low) {
        fixed["lower_value"] = ns(*a.fixed_ci95_low);
        fixed["upper_value"] = ns(*a.fixed_ci95_high);
      }
      out[res->label()] = {{"exponent", exponent},
                           {"marginal_ns_per_token", marginal},
                           {"fixed_ns", fixed},
                           {"per_token_ns", {{"value", ns(f.per_token_s)}}}};
    }
    for (const ReportPoint& p : res->points)
      out[res->label() + strprintf("/L=%.0f", p.length)] = {{"latency",
                                                             {{"value", ns(p.seconds)},
                                                              {"lower_value", ns(p.min_s)},
                                                              {"upper_value", ns(p.median_s)}}}};
  }
  return out;
}

Json export_gab(const Report& r) {
  Json out = Json::array();
  for (const ReportResult* res : timed_results(r)) {
    for (const ReportPoint& p : res->points)
      out.push_back({{"name", res->label() + strprintf(" L=%.0f", p.length)},
                     {"unit", "ns"},
                     {"value", ns(p.seconds)},
                     {"extra", strprintf("statistic %s; min %.9g ns, median %.9g ns; %.3g GB/s",
                                         std::string(to_string(r.statistic)).c_str(), ns(p.min_s),
                                         ns(p.median_s), p.gbps)}});
    if (!res->fit) continue;
    const FitResult& f = res->fit->power;
    const AffineFit& a = res->fit->affine;
    out.push_back({{"name", res->label() + " marginal cost"},
                   {"unit", "ns/token"},
                   {"value", ns(a.marginal_s)},
                   {"extra", strprintf("b of t = t0 + b*L over %d points; fixed cost t0 %.9g ns",
                                       a.n_points, ns(a.fixed_s))}});
    out.push_back(
        {{"name", res->label() + " per-token cost"},
         {"unit", "ns/token"},
         {"value", ns(f.per_token_s)},
         {"extra", strprintf("t(L)/L at L=%.0f, the longest fitted length", f.longest_length)}});
    Json exponent = {
        {"name", res->label() + " exponent"}, {"unit", "exponent"}, {"value", f.exponent}};
    std::string extra = strprintf("t = c*L^p over %d points", f.n_points);
    if (res->fit->fit_from > 0) extra += strprintf(" with L >= %.0f", res->fit->fit_from);
    if (f.ci95_low) {
      exponent["range"] = strprintf("± %.3g", (*f.ci95_high - *f.ci95_low) / 2);
      extra += strprintf("; 95%% CI [%.3f, %.3f]", *f.ci95_low, *f.ci95_high);
    } else {
      extra += "; no CI";
    }
    exponent["extra"] = extra + "; regime " + std::string(to_string(f.regime)) +
                        (res->fit->asymptote_reached ? "" : "; asymptote not reached");
    out.push_back(std::move(exponent));
  }
  return out;
}

}  // namespace readbench
