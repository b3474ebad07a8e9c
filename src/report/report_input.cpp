#include "report/report_input.hpp"

#include <cmath>

#include "core/errors.hpp"
#include "report/json_report.hpp"

namespace readbench {

namespace {

using nlohmann::json;

// Field readers: each names the report and the JSON path of what is wrong.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(source_ + ": " + where + " " + what);
  }
  const json& field(const json& obj, const std::string& where, const char* key) const {
    if (!obj.is_object()) fail(where, "is not an object");
    if (!obj.contains(key)) fail(where + "." + key, "is missing");
    return obj.at(key);
  }
  double number(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_number()) fail(where + "." + key, "is not a number");
    return v.get<double>();
  }
  std::string text(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_string()) fail(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  // Lengths, times and costs: a hand-edited zero or negative value would turn ratios and
  // logarithms downstream into nonsense.
  double positive(const json& obj, const std::string& where, const char* key) const {
    const double v = number(obj, where, key);
    if (!(v > 0) || !std::isfinite(v))
      fail(where + "." + key, "must be positive, got " + json(v).dump());
    return v;
  }
  const json& array(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_array()) fail(where + "." + key, "is not an array");
    return v;
  }

 private:
  std::string source_;
};

ReportFit read_fit(const Reader& r, const json& f, const std::string& where) {
  ReportFit fit;
  fit.exponent = r.number(f, where, "exponent");
  fit.constant = r.number(f, where, "constant");
  const json& ci = r.field(f, where, "ci95");
  if (!ci.is_null()) {
    if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number())
      r.fail(where + ".ci95", "is not null or a [low, high] pair of numbers");
    fit.ci95_low = ci[0].get<double>();
    fit.ci95_high = ci[1].get<double>();
    if (!(*fit.ci95_low <= fit.exponent && fit.exponent <= *fit.ci95_high))
      r.fail(where + ".ci95", "does not contain the exponent");
  }
  const std::string regime = r.text(f, where, "regime");
  bool known = false;
  for (Regime g : {Regime::flat, Regime::sublinear, Regime::linear, Regime::superlinear})
    if (regime == to_string(g)) {
      fit.regime = g;
      known = true;
    }
  if (!known) r.fail(where + ".regime", "'" + regime + "' is not a regime");
  // The gates read the regime word: it must be the one the exponent gives.
  if (fit.regime != regime_of(fit.exponent))
    r.fail(where + ".regime",
           "'" + regime + "' is not the regime of exponent " + json(fit.exponent).dump());
  fit.per_token_s = r.positive(f, where, "per_token_s");
  fit.longest_length = r.positive(f, where, "longest_length");
  fit.n_points = int(r.number(f, where, "n_points"));
  fit.fit_from = r.number(f, where, "fit_from");
  return fit;
}

}  // namespace

nlohmann::ordered_json origin_to_json(const ReportOrigin& o) {
  return {{"source", o.source},
          {"machine", o.machine},
          {"git_commit", o.git_commit},
          {"statistic", o.statistic}};
}

const ReportResult* Report::find(const std::string& backend, const std::string& path) const {
  for (const ReportResult& r : results)
    if (r.backend == backend && r.path == path) return &r;
  return nullptr;
}

Report report_from_json(const json& j, const std::string& source) {
  const Reader r(source);
  if (!j.is_object() || !j.contains("results"))
    throw InputError(source + ": not a readbench report (no 'results')");
  const double version = r.number(j, "report", "schema_version");
  if (version != kSchemaVersion)
    r.fail("schema_version", std::to_string(int(version)) + " is not the supported " +
                                 std::to_string(kSchemaVersion));
  Report rep;
  rep.source = source;
  rep.git_commit = r.text(r.field(j, "report", "tool"), "tool", "git_commit");
  const json& config = r.field(j, "report", "config");
  rep.statistic = r.text(config, "config", "statistic");
  if (rep.statistic != "min" && rep.statistic != "median")
    r.fail("config.statistic", "'" + rep.statistic + "' is not min or median");
  auto whole = [&](const char* key) {
    return std::to_string(int(r.number(config, "config", key)));
  };
  rep.config = r.text(config, "config", "dtype") + ", B=" + whole("batch") +
               " Hq=" + whole("q_heads") + " Hkv=" + whole("kv_heads") + " D=" + whole("head_dim") +
               " S=" + whole("block_size") + ", " + r.text(config, "config", "cache") + " cache";
  const json& machine = r.field(j, "report", "machine");
  rep.machine = r.text(machine, "machine", "hostname");
  std::string gpus;
  for (const json& g : r.array(machine, "machine", "gpus"))
    if (g.is_object() && g.contains("name") && g["name"].is_string())
      gpus += (gpus.empty() ? "" : ", ") + g["name"].get<std::string>();
  if (!gpus.empty()) rep.machine += " (" + gpus + ")";

  const json& results = r.array(j, "report", "results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = "results[" + std::to_string(i) + "]";
    const json& res = results[i];
    ReportResult out;
    out.backend = r.text(res, where, "backend");
    out.path = r.text(res, where, "path");
    if (rep.find(out.backend, out.path))
      r.fail(where,
             "repeats " + out.backend + "/" + out.path + ": one result per backend and path");
    out.status = r.text(res, where, "status");
    if (out.status != "ok" && out.status != "unavailable" && out.status != "failed")
      r.fail(where + ".status", "'" + out.status + "' is not ok, unavailable or failed");
    out.reason = r.text(res, where, "reason");
    const json& points = r.array(res, where, "points");
    for (std::size_t k = 0; k < points.size(); ++k) {
      const std::string at = where + ".points[" + std::to_string(k) + "]";
      ReportPoint p;
      p.length = r.positive(points[k], at, "length");
      p.min_s = r.positive(points[k], at, "min_s");
      p.median_s = r.positive(points[k], at, "median_s");
      p.gbps = r.number(points[k], at, "gbps");
      p.seconds = rep.statistic == "min" ? p.min_s : p.median_s;
      out.points.push_back(p);
    }
    const json& fit = r.field(res, where, "fit");
    if (!fit.is_null()) out.fit = read_fit(r, fit, where + ".fit");
    rep.results.push_back(std::move(out));
  }
  return rep;
}

Report parse_report(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(source + ": malformed JSON: " + e.what());
  }
  return report_from_json(j, source);
}

}  // namespace readbench
