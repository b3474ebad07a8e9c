#include "report/ab_report.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/printable.hpp"
#include "core/strprintf.hpp"
#include "measure/ab_protocol.hpp"
#include "report/json_report.hpp"
#include "report/schema_version.hpp"
#include "version.hpp"

namespace readbench {

namespace {

Json interval_json(const std::optional<Interval>& ci) {
  return ci ? Json::array({ci->low, ci->high}) : Json(nullptr);
}

Json optional_json(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json arm_json(const AbArm& a, const std::vector<Path>& paths) {
  Json p = Json::array();
  for (const Path& x : paths) p.push_back(to_string(x));
  return {{"role", a.role},          {"binary", a.binary},   {"version", a.version},
          {"git_commit", a.git_commit}, {"plugins", a.plugins}, {"paths", p},
          {"address_layout", a.address_layout}};
}

Json pairing_json(const AbPairing& p) {
  Json lengths = Json::array();
  for (std::size_t k = 0; k < p.slices.size(); ++k) {
    const PairedLength& pl = p.slices[k];
    Json j = {{"length", pl.length}, {"pairs", pl.base_s.size()}, {"disturbed_pairs", p.disturbed_pairs[k]}};
    if (p.comparison) {
      const LengthRatio& lr = p.comparison->lengths[k];
      j["ratio"] = lr.ratio;
      j["ci95"] = interval_json(lr.ci95);
      j["base_s"] = lr.base_s;
      j["head_s"] = lr.head_s;
    }
    j["base_slices"] = pl.base_s;
    j["head_slices"] = pl.head_s;
    lengths.push_back(j);
  }
  Json j = {{"base_path", to_string(p.base_path)},
            {"head_path", to_string(p.head_path)},
            {"status", to_string(p.status)},
            {"failed_arm", p.failed_arm.empty() ? Json(nullptr) : Json(p.failed_arm)},
            {"reason", p.reason},
            {"lengths", lengths}};
  if (const auto& c = p.comparison) {
    j["fit_from"] = c->fit_from;
    j["region_lengths"] = c->region_lengths;
    j["between_lengths_sd"] = c->between_lengths_sd;
    j["delta_p"] = optional_json(c->delta_p);
    j["delta_p_ci95"] = interval_json(c->delta_p_ci95);
    j["delta_p_verdict"] = to_string(c->delta_p_verdict);
    j["cost_ratio"] = optional_json(c->cost_ratio);
    j["cost_ratio_ci95"] = interval_json(c->cost_ratio_ci95);
    j["cost_verdict"] = to_string(c->cost_verdict);
    j["verdict"] = to_string(c->verdict);
    j["verdict_reason"] = c->reason;
  } else {
    j["verdict"] = to_string(AbVerdict::inconclusive);
    j["verdict_reason"] = p.status == Status::ok ? "fewer than two lengths were paired" : p.reason;
  }
  return j;
}

std::string ci_text(const std::optional<Interval>& ci, const char* format) {
  if (!ci) return "(no CI)";
  std::string out(1, '[');
  out += strprintf(format, ci->low);
  out += ", ";
  out += strprintf(format, ci->high);
  out += ']';
  return out;
}

}  // namespace

int exit_status_of(AbVerdict v) {
  switch (v) {
    case AbVerdict::pass:
      return 0;
    case AbVerdict::regression:
      return 1;
    case AbVerdict::inconclusive:
      return 4;
  }
  return 4;
}

Json build_ab_report(const AbResult& r, const HostInfo& host, const std::string& created_at) {
  Json pairings = Json::array();
  for (const AbPairing& p : r.pairings) pairings.push_back(pairing_json(p));
  const SweepConfig& s = r.config.sweep;
  Json report = report_header(r.signal, host, created_at);
  report["ab"] = {
      {"protocol", kAbProtocol},
      {"backend", to_string(s.backend)},
      {"device", s.devices.empty() ? 0 : s.devices.front()},
      {"lengths", r.lengths},
      {"grid", {{"stop", to_string(r.grid_stop)}, {"reason", r.grid_reason}}},
      {"workers", r.one_worker ? "one" : "two"},
      {"rounds", r.rounds},
      {"seconds", r.seconds},
      {"stop_reason", r.stop_reason},
      {"slice_s", r.config.slice_s},
      {"statistic", to_string(s.statistic)},
      {"fit_from", s.fit_from ? Json(*s.fit_from) : Json("auto")},
      {"seed", s.seed},
      {"thresholds",
       {{"tolerance", r.config.thresholds.tolerance},
        {"max_cost_ratio", r.config.thresholds.max_cost_ratio}}},
      {"method",
       {{"per_length", to_string(r.config.method)},
        {"region", "paired bootstrap within each length, percentile interval"},
        {"offsets", offsets_model(r.config.method)},
        {"resamples", kBootstrapResamples},
        {"bootstrap_seed", kBootstrapSeed}}},
      {"arms", Json::array({arm_json(r.base, r.config.base.paths), arm_json(r.head, r.config.head.paths)})},
      {"pairings", pairings},
      {"verdict", to_string(r.verdict())}};
  report["base"] = build_report(r.base.run, host, created_at);
  report["head"] = build_report(r.head.run, host, created_at);
  return report;
}

std::string format_ab_markdown(const AbResult& r) {
  const SweepConfig& s = r.config.sweep;
  const Workload w = s.workload(0);
  std::string out = "## readbench ab: head against base on " + std::string(to_string(s.backend)) +
                    " (" + std::string(to_string(s.dtype)) +
                    (w.kv_dtype() != s.dtype ? " q, " + std::string(to_string(w.kv_dtype())) + " K/V" : "") +
                    ", B=" + std::to_string(s.shape.batch) + " Hq=" + std::to_string(s.shape.q_heads) +
                    " Hkv=" + std::to_string(s.shape.kv_heads) + " D=" + std::to_string(s.shape.head_dim) +
                    " S=" + std::to_string(s.shape.block_size) + ", " + std::string(to_string(s.sampling.cache)) +
                    " cache)\n\n";
  for (const AbArm* a : {&r.base, &r.head}) {
    out += "- " + a->role + ": " + printable(a->binary) + ", readbench " + printable(a->version) + " (" +
           printable(a->git_commit) + ")";
    for (const std::string& p : a->plugins) out += ", plugin " + printable(p);
    if (a->address_layout != "fixed")
      out += "; its address layout was randomized (the system refused a fixed one): offsets of a "
             "few percent between the arms' buffers may fall on the cost ratio";
    out += "\n";
  }
  if (r.one_worker)
    out += "- both arms in one worker of their binary" +
           std::string(s.backend == BackendChoice::cpu ? ", reading one workload in memory" : "") + "\n";
  else if (s.backend == BackendChoice::cpu)
    out +=
        "- a worker each: on a small shared machine two processes can read a few percent apart "
        "for a whole run, an offset pairing cannot cancel, and the cost ratio carries it "
        "(docs/gate.md, \"Two workers\")\n";
  out += "\n| path | region | delta p [95% CI] | cost ratio [95% CI] | verdict |\n|---|---|---|---|---|\n";
  for (const AbPairing& p : r.pairings) {
    if (!p.comparison) {
      out += "| " + p.name() + " | | | | " +
             (p.status == Status::ok ? std::string("inconclusive: fewer than two lengths paired")
                                     : "failed: " + printable(p.reason)) +
             " |\n";
      continue;
    }
    const PairedComparison& c = *p.comparison;
    out += "| " + p.name() + " | L >= " + strprintf("%.0f", c.fit_from) + " (" +
           std::to_string(c.region_lengths) + " lengths" +
           (c.between_lengths_sd > 0 ? strprintf(", offsets between them %.1f%%", 100 * c.between_lengths_sd)
                                     : std::string()) +
           ") | " +
           (c.delta_p ? strprintf("%+.3f ", *c.delta_p) : std::string("- ")) + ci_text(c.delta_p_ci95, "%+.3f") +
           " | " + (c.cost_ratio ? strprintf("%.3f ", *c.cost_ratio) : std::string("- ")) +
           ci_text(c.cost_ratio_ci95, "%.3f") + " | " + std::string(to_string(c.verdict)) + " |\n";
  }
  for (const AbPairing& p : r.pairings) {
    if (!p.comparison) continue;
    out += "\n" + p.name() + ", head/base per length:\n\n| L | pairs | disturbed | ratio [95% CI] |\n|---|---|---|---|\n";
    for (std::size_t k = 0; k < p.slices.size(); ++k) {
      const LengthRatio& lr = p.comparison->lengths[k];
      out += "| " + std::to_string(lr.length) + " | " + std::to_string(lr.pairs) + " | " +
             std::to_string(p.disturbed_pairs[k]) + " | " + strprintf("%.3f ", lr.ratio) +
             ci_text(lr.ci95, "%.3f") + " |\n";
    }
    out += "\n" + p.comparison->reason + "\n";
  }
  out += "\n" + std::to_string(r.rounds) + " rounds over " + std::to_string(r.lengths.size()) + " lengths in " +
         strprintf("%.0f", r.seconds) + " s (" + r.stop_reason + "); the grid: " +
         std::string(to_string(r.grid_stop)) + (r.grid_reason.empty() ? "" : " (" + r.grid_reason + ")") + "\n";
  out += "A regression: delta p's CI wholly above +" + strprintf("%.3g", r.config.thresholds.tolerance) +
         ", or the cost ratio's wholly above " + strprintf("%.3g", r.config.thresholds.max_cost_ratio) +
         "; a pass: both wholly at or below; else inconclusive.\n";
  out += "VERDICT: " + std::string(to_string(r.verdict())) + "\n";
  return out;
}

Json export_ab_bmf(const AbReport& rep) {
  Json out = Json::object();
  for (const AbPairing& p : rep.result.pairings) {
    if (!p.comparison) continue;
    const PairedComparison& c = *p.comparison;
    Json measures = Json::object();
    const auto measure = [&](const char* name, const std::optional<double>& v, const std::optional<Interval>& ci) {
      if (!v) return;
      Json m = {{"value", *v}};
      if (ci) {
        m["lower_value"] = ci->low;
        m["upper_value"] = ci->high;
      }
      measures[name] = m;
    };
    measure("delta_p", c.delta_p, c.delta_p_ci95);
    measure("cost_ratio", c.cost_ratio, c.cost_ratio_ci95);
    if (!measures.empty()) out["ab/" + p.name()] = measures;
  }
  if (out.empty()) throw InputError(printable(rep.source) + ": nothing to export: no pairing was compared");
  return out;
}

Json export_ab_gab(const AbReport& rep) {
  Json out = Json::array();
  for (const AbPairing& p : rep.result.pairings) {
    if (!p.comparison) continue;
    const PairedComparison& c = *p.comparison;
    const auto entry = [&](const char* what, const char* unit, const std::optional<double>& v,
                           const std::optional<Interval>& ci) {
      if (!v) return;
      Json e = {{"name", "ab " + p.name() + " " + what}, {"unit", unit}, {"value", *v}};
      if (ci) e["range"] = strprintf("± %.3g", (ci->high - ci->low) / 2);
      e["extra"] = "head against base, " + std::to_string(c.region_lengths) + " lengths from L=" +
                   strprintf("%.0f", c.fit_from) + "; verdict " + std::string(to_string(c.verdict));
      out.push_back(e);
    };
    entry("cost ratio", "head/base", c.cost_ratio, c.cost_ratio_ci95);
    entry("delta p", "exponent change", c.delta_p, c.delta_p_ci95);
  }
  if (out.empty()) throw InputError(printable(rep.source) + ": nothing to export: no pairing was compared");
  return out;
}

void rejudge(AbResult& r, const PairedThresholds& thresholds) {
  r.config.thresholds = thresholds;
  compare_pairings(r);
}

bool is_ab_report(const nlohmann::json& j) {
  return j.is_object() && j.contains("ab");
}

namespace {

// Field access that names the source and the field in every error.
struct AbReader {
  std::string source;

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw InputError(printable(source) + ": " + field + " " + why);
  }
  const nlohmann::json& at(const nlohmann::json& j, const std::string& where, const char* key) const {
    if (!j.is_object() || !j.contains(key)) fail(where + "." + key, "is missing");
    return j.at(key);
  }
  double number(const nlohmann::json& j, const std::string& where, const char* key) const {
    const auto& v = at(j, where, key);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(where + "." + key, "is not a finite number");
    return v.get<double>();
  }
  std::string text(const nlohmann::json& j, const std::string& where, const char* key) const {
    const auto& v = at(j, where, key);
    if (!v.is_string()) fail(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  std::vector<double> times(const nlohmann::json& j, const std::string& where, const char* key) const {
    const auto& v = at(j, where, key);
    if (!v.is_array()) fail(where + "." + key, "is not an array");
    std::vector<double> out;
    for (const auto& x : v) {
      if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() <= 0)
        fail(where + "." + key, "holds " + x.dump() + ": slice times are finite numbers > 0");
      out.push_back(x.get<double>());
    }
    return out;
  }
  std::optional<Interval> interval(const nlohmann::json& j, const std::string& where, const char* key) const {
    const auto& v = at(j, where, key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
      fail(where + "." + key, "is not [low, high] or null");
    return Interval{v[0].get<double>(), v[1].get<double>()};
  }
};

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

AbReport ab_report_from_json(const nlohmann::json& j, const std::string& source) {
  const AbReader rd{source};
  if (!is_ab_report(j)) rd.fail("ab", "is missing: not a readbench ab report");
  const double version = rd.number(j, "report", "schema_version");
  if (version != kSchemaVersion)
    rd.fail("schema_version", strprintf("%g", version) + " is not one this readbench reads for ab reports (" +
                                  std::to_string(kSchemaVersion) + ")");
  AbReport out;
  out.source = source;
  const auto& complete = rd.at(j, "report", "complete");
  if (!complete.is_boolean()) rd.fail("complete", "is not true or false");
  out.complete = complete.get<bool>();
  if (!out.complete) out.signal = rd.text(j, "report", "signal");
  const auto& ab = rd.at(j, "report", "ab");
  // Protocol 1 wrote the same report without "workers".
  if (const double protocol = rd.number(ab, "ab", "protocol"); protocol != 1 && protocol != kAbProtocol)
    rd.fail("ab.protocol", "is not 1 or " + std::to_string(kAbProtocol));
  AbResult& r = out.result;
  r.signal = out.complete ? 0 : std::max(1, signal_number(out.signal));
  SweepConfig& s = r.config.sweep;
  s.backend = parse_backend_choice(rd.text(ab, "ab", "backend"));
  const auto& fit_from = rd.at(ab, "ab", "fit_from");
  if (fit_from.is_number()) s.fit_from = fit_from.get<double>();
  else if (fit_from != "auto") rd.fail("ab.fit_from", "is not \"auto\" or a length");
  const auto& th = rd.at(ab, "ab", "thresholds");
  r.config.thresholds = {rd.number(th, "ab.thresholds", "tolerance"), rd.number(th, "ab.thresholds", "max_cost_ratio")};
  r.config.slice_s = rd.number(ab, "ab", "slice_s");
  // The method the report names is the one its pairs are compared by again.
  const std::string per_length = rd.text(rd.at(ab, "ab", "method"), "ab.method", "per_length");
  if (const auto method = find_named(kPairedMethodNames, per_length)) r.config.method = *method;
  else rd.fail("ab.method.per_length", "is not a method readbench compares pairs by (" + names_of(kPairedMethodNames) + ")");
  if (ab.contains("workers")) {
    const std::string workers = rd.text(ab, "ab", "workers");
    if (workers != "one" && workers != "two") rd.fail("ab.workers", "is not one or two");
    r.one_worker = workers == "one";
  }
  r.rounds = int(rd.number(ab, "ab", "rounds"));
  r.seconds = rd.number(ab, "ab", "seconds");
  r.stop_reason = rd.text(ab, "ab", "stop_reason");
  const auto& grid = rd.at(ab, "ab", "grid");
  if (const auto stop = find_named(kGridStopNames, rd.text(grid, "ab.grid", "stop"))) r.grid_stop = *stop;
  else rd.fail("ab.grid.stop", "is not a grid stop readbench writes");
  r.grid_reason = rd.text(grid, "ab.grid", "reason");
  for (const auto& len : rd.at(ab, "ab", "lengths")) {
    if (!len.is_number_integer() || len.get<std::int64_t>() <= 0) rd.fail("ab.lengths", "holds a length that is not a whole number > 0");
    r.lengths.push_back(len.get<std::int64_t>());
  }
  const auto& arms = rd.at(ab, "ab", "arms");
  if (!arms.is_array() || arms.size() != 2) rd.fail("ab.arms", "is not the two arms");
  for (int i = 0; i < 2; ++i) {
    AbArm& a = i == 0 ? r.base : r.head;
    const std::string where = "ab.arms[" + std::to_string(i) + "]";
    a.role = rd.text(arms[i], where, "role");
    if (a.role != (i == 0 ? "base" : "head")) rd.fail(where + ".role", "is not " + std::string(i == 0 ? "base" : "head"));
    a.binary = rd.text(arms[i], where, "binary");
    a.version = rd.text(arms[i], where, "version");
    a.git_commit = rd.text(arms[i], where, "git_commit");
    a.address_layout = rd.text(arms[i], where, "address_layout");
    if (a.address_layout != "fixed" && a.address_layout != "randomized")
      rd.fail(where + ".address_layout", "is not fixed or randomized");
  }
  const auto& pairings = rd.at(ab, "ab", "pairings");
  if (!pairings.is_array() || pairings.empty()) rd.fail("ab.pairings", "is not a non-empty array");
  for (std::size_t i = 0; i < pairings.size(); ++i) {
    const std::string where = "ab.pairings[" + std::to_string(i) + "]";
    const auto& pj = pairings[i];
    AbPairing p;
    p.base_path = parse_path(rd.text(pj, where, "base_path"));
    p.head_path = parse_path(rd.text(pj, where, "head_path"));
    if (const auto st = find_named(kStatusNames, rd.text(pj, where, "status"))) p.status = *st;
    else rd.fail(where + ".status", "is not ok, unavailable or failed");
    p.reason = rd.text(pj, where, "reason");
    if (const auto& arm = rd.at(pj, where, "failed_arm"); !arm.is_null()) {
      if (arm != "base" && arm != "head") rd.fail(where + ".failed_arm", "is not base, head or null");
      p.failed_arm = arm.get<std::string>();
    }
    if ((p.status == Status::failed) != !p.failed_arm.empty())
      rd.fail(where + ".failed_arm", "must name the arm exactly when the pairing failed");
    const auto& lengths = rd.at(pj, where, "lengths");
    if (!lengths.is_array()) rd.fail(where + ".lengths", "is not an array");
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      const std::string lw = where + ".lengths[" + std::to_string(k) + "]";
      PairedLength pl;
      const double len = rd.number(lengths[k], lw, "length");
      if (len <= 0 || len != std::floor(len)) rd.fail(lw + ".length", "is not a whole number > 0");
      pl.length = std::int64_t(len);
      pl.base_s = rd.times(lengths[k], lw, "base_slices");
      pl.head_s = rd.times(lengths[k], lw, "head_slices");
      if (pl.base_s.size() != pl.head_s.size() || pl.base_s.empty())
        rd.fail(lw, "holds base and head slices of different or no counts");
      if (rd.number(lengths[k], lw, "pairs") != double(pl.base_s.size()))
        rd.fail(lw + ".pairs", "is not the count of its slices");
      const double disturbed = rd.number(lengths[k], lw, "disturbed_pairs");
      if (disturbed < 0 || disturbed > double(pl.base_s.size()) || disturbed != std::floor(disturbed))
        rd.fail(lw + ".disturbed_pairs", "is not a count of its pairs");
      p.disturbed_pairs.push_back(int(disturbed));
      p.slices.push_back(std::move(pl));
    }
    r.pairings.push_back(std::move(p));
  }
  // The pairs decide: their comparison computed again must be the stored one.
  try {
    compare_pairings(r);
  } catch (const InputError& e) {
    rd.fail("ab.pairings", std::string("do not compare: ") + e.what());
  }
  for (std::size_t i = 0; i < pairings.size(); ++i) {
    const std::string where = "ab.pairings[" + std::to_string(i) + "]";
    const auto& pj = pairings[i];
    const AbPairing& p = r.pairings[i];
    const std::string stored = rd.text(pj, where, "verdict");
    const std::string computed(p.comparison ? to_string(p.comparison->verdict) : to_string(AbVerdict::inconclusive));
    if (stored != computed) rd.fail(where + ".verdict", "is " + stored + " but its pairs give " + computed);
    if (!p.comparison) continue;
    const PairedComparison& c = *p.comparison;
    const auto check_number = [&](const nlohmann::json& obj, const std::string& at, const char* key,
                                  const std::optional<double>& v) {
      const auto& f = rd.at(obj, at, key);
      const bool ok = v ? f.is_number() && close(f.get<double>(), *v) : f.is_null();
      if (!ok) rd.fail(at + "." + key, "is " + f.dump() + " but its pairs give " + (v ? strprintf("%.17g", *v) : "null"));
    };
    const auto check_interval = [&](const nlohmann::json& obj, const std::string& at, const char* key,
                                    const std::optional<Interval>& v) {
      const auto stored_ci = rd.interval(obj, at, key);
      const bool ok = stored_ci.has_value() == v.has_value() &&
                      (!v || (close(stored_ci->low, v->low) && close(stored_ci->high, v->high)));
      if (!ok) rd.fail(at + "." + key, "is not the interval its pairs give");
    };
    check_number(pj, where, "fit_from", c.fit_from);
    check_number(pj, where, "between_lengths_sd", c.between_lengths_sd);
    check_number(pj, where, "delta_p", c.delta_p);
    check_number(pj, where, "cost_ratio", c.cost_ratio);
    check_interval(pj, where, "delta_p_ci95", c.delta_p_ci95);
    check_interval(pj, where, "cost_ratio_ci95", c.cost_ratio_ci95);
    for (std::size_t k = 0; k < c.lengths.size(); ++k) {
      const std::string lw = where + ".lengths[" + std::to_string(k) + "]";
      const auto& lj = pj["lengths"][k];
      check_number(lj, lw, "ratio", c.lengths[k].ratio);
      check_number(lj, lw, "base_s", c.lengths[k].base_s);
      check_number(lj, lw, "head_s", c.lengths[k].head_s);
      check_interval(lj, lw, "ci95", c.lengths[k].ci95);
    }
  }
  if (rd.text(ab, "ab", "verdict") != to_string(r.verdict()))
    rd.fail("ab.verdict", "is " + rd.text(ab, "ab", "verdict") + " but its pairings give " +
                              std::string(to_string(r.verdict())));
  out.base = report_from_json(rd.at(j, "report", "base"), source + " [base]");
  out.head = report_from_json(rd.at(j, "report", "head"), source + " [head]");
  return out;
}

}  // namespace readbench
