#include "report/fit_json.hpp"

#include <nlohmann/json.hpp>

namespace readbench {

Json number_or_null(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

namespace {

Json pair_or_null(const std::optional<double>& low, const std::optional<double>& high) {
  return low && high ? Json::array({*low, *high}) : Json(nullptr);
}

}  // namespace

Json fit_to_json(const ReadFit& r) {
  const FitResult& f = r.power;
  Json segments = Json::array();
  for (const Segment& s : f.segments)
    segments.push_back(
        {{"from_length", s.from_length}, {"to_length", s.to_length}, {"exponent", s.exponent}});
  Json j;
  j["exponent"] = f.exponent;
  j["constant"] = f.constant;
  j["r2"] = f.r2;
  j["stderr"] = number_or_null(f.stderr_exponent);
  j["ci95"] = pair_or_null(f.ci95_low, f.ci95_high);
  if (!f.ci95_low) j["ci95_reason"] = f.ci95_reason;
  j["per_token_s"] = f.per_token_s;
  j["longest_length"] = f.longest_length;
  j["regime"] = to_string(f.regime);
  j["n_points"] = f.n_points;
  j["fit_from"] = r.fit_from;
  j["fit_from_auto"] = r.fit_from_auto;
  j["fit_basis"] = to_string(r.basis);
  j["tried_fit_from"] = r.tried_from;
  j["tried_lengths"] = r.tried_lengths;
  j["segments"] = segments;

  const AffineFit& a = r.affine;
  j["fixed_s"] = a.fixed_s;
  j["fixed_ci95"] = pair_or_null(a.fixed_ci95_low, a.fixed_ci95_high);
  j["fixed_resolved"] = fixed_cost_resolved(a);
  j["marginal_s"] = a.marginal_s;
  j["marginal_ci95"] = pair_or_null(a.marginal_ci95_low, a.marginal_ci95_high);
  if (!a.fixed_ci95_low) j["affine_ci95_reason"] = a.ci95_reason;
  j["affine_rms_relative_error"] = a.rms_relative_error;
  j["kv_bytes_per_token"] = number_or_null(r.kv_bytes_per_token);
  j["effective_gbps"] = number_or_null(r.effective_gbps);
  j["effective_ceiling_fraction"] = number_or_null(r.ceiling_fraction);
  if (!r.effective_gbps) j["effective_gbps_reason"] = r.bandwidth_reason;
  j["share_fit"] = {{"fixed_s", r.share_basis.fixed_s},
                    {"marginal_s", r.share_basis.marginal_s},
                    {"n_points", r.share_basis.n_points}};
  j["share_threshold"] = kAsymptoteShare;
  j["region_lengths"] = r.region_lengths;
  j["region_span"] = r.region_span;
  int clamped = 0;
  for (std::size_t i = 0; i < r.shares.size(); ++i) clamped += r.share_clamped(i) ? 1 : 0;
  j["shares_clamped"] = clamped;
  j["cost_rise"] = r.cost_rise;
  j["cost_rise_length"] = r.cost_rise_length;
  // Null for a fit read back from a report judged by the share alone (schema version 5 or
  // before), which the rise did not decide.
  j["cost_rise_limit"] = r.settle() ? Json(1 + kSettleRise) : Json(nullptr);
  j["asymptote_reached"] = r.asymptote_reached;
  j["asymptote_reason"] = r.asymptote_reason;
  j["shortfall"] = to_string(r.shortfall);
  return j;
}

}  // namespace readbench
