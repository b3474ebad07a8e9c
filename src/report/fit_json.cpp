#include "report/fit_json.hpp"

namespace readbench {

Json number_or_null(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json fit_to_json(const FitResult& f) {
  Json segments = Json::array();
  for (const Segment& s : f.segments)
    segments.push_back(
        {{"from_length", s.from_length}, {"to_length", s.to_length}, {"exponent", s.exponent}});
  Json j;
  j["exponent"] = f.exponent;
  j["constant"] = f.constant;
  j["r2"] = f.r2;
  j["stderr"] = number_or_null(f.stderr_exponent);
  if (f.ci95_low && f.ci95_high) {
    j["ci95"] = {*f.ci95_low, *f.ci95_high};
  } else {
    j["ci95"] = nullptr;
    j["ci95_reason"] = f.ci95_reason;
  }
  j["per_token_s"] = f.per_token_s;
  j["longest_length"] = f.longest_length;
  j["regime"] = to_string(f.regime);
  j["n_points"] = f.n_points;
  j["fit_from"] = f.fit_from;
  j["segments"] = segments;
  j["asymptote_reached"] = f.asymptote_reached;
  j["asymptote_tolerance"] = f.asymptote_tolerance;
  return j;
}

}  // namespace readbench
