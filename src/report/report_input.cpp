#include "report/report_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/printable.hpp"
#include "core/read_path.hpp"
#include "core/shape.hpp"
#include "report/json_input.hpp"
#include "report/schema_version.hpp"

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
  // A whole number in [lo, hi]: a report's counts and sizes, never converted out of range.
  std::int64_t integer(const json& obj, const std::string& where, const char* key, std::int64_t lo,
                       std::int64_t hi) const {
    const double v = number(obj, where, key);
    if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v))
      fail(where + "." + key, "must be a whole number from " + std::to_string(lo) + " to " +
                                  std::to_string(hi) + ", got " + json(v).dump());
    return std::int64_t(v);
  }
  std::string text(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_string()) fail(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  // Text the readers show (a hostname, a reason): its control characters escaped, so that it
  // stays on its line of a table or a message.
  std::string shown(const json& obj, const std::string& where, const char* key) const {
    return printable(text(obj, where, key));
  }
  // Lengths, times and costs: a hand-edited zero or negative value would turn ratios and
  // logarithms downstream into nonsense.
  double positive(const json& obj, const std::string& where, const char* key) const {
    const double v = number(obj, where, key);
    if (!(v > 0) || !std::isfinite(v))
      fail(where + "." + key, "must be positive, got " + json(v).dump());
    return v;
  }
  // One of an enum's words (core/enum_names.hpp), as the enum.
  template <class E, std::size_t N>
  E word(const json& obj, const std::string& where, const char* key,
         const Named<E> (&table)[N]) const {
    const std::string s = text(obj, where, key);
    if (const auto v = find_named(table, s)) return *v;
    fail(where + "." + key, "'" + s + "' is not " + names_of(table));
  }
  const json& array(const json& obj, const std::string& where, const char* key) const {
    const json& v = field(obj, where, key);
    if (!v.is_array()) fail(where + "." + key, "is not an array");
    return v;
  }

 private:
  std::string source_;
};

// N of a backend named cuda:N (one of several devices swept at once: a device index, an int);
// none for any other name.
std::optional<int> device_index(std::string_view backend) {
  constexpr std::string_view kPrefix = "cuda:";
  if (!backend.starts_with(kPrefix) || backend.size() == kPrefix.size()) return std::nullopt;
  int index = -1;
  const char* end = backend.data() + backend.size();
  const auto [stop, error] = std::from_chars(backend.data() + kPrefix.size(), end, index);
  if (error != std::errc() || stop != end || index < 0) return std::nullopt;
  // As a run writes it: "cuda:01" would be a second name for cuda:1.
  if (backend.substr(kPrefix.size()) != std::to_string(index)) return std::nullopt;
  return index;
}

// A backend's name as a run writes it: cpu, cuda, or cuda:N.
bool valid_backend_name(std::string_view s) {
  return s == "cpu" || s == "cuda" || device_index(s).has_value();
}

// Two numbers written by the same computation from the same points: equal but for rounding.
bool agrees(double stored, double computed) {
  return std::abs(stored - computed) <=
         1e-6 * std::max({1e-300, std::abs(stored), std::abs(computed)});
}

// The rest of a point's sample statistics and counts, which readers show or pass on: whole
// counts of at least 1 (rounds from schema version 5), times positive and in order (the mean
// within rounding of [min, max], as a sum of equal samples over their count may not be exact),
// a standard deviation >= 0, bytes positive.
// Returns the point's bytes.
double check_point_statistics(const Reader& r, const json& point, const std::string& at,
                              const ReportPoint& p, int schema_version) {
  constexpr std::int64_t kMostCount = std::int64_t(1) << 53;
  r.integer(point, at, "samples", 1, kMostCount);
  r.integer(point, at, "calls_per_sample", 1, kMostCount);
  r.integer(point, at, "replicas", 1, kMostCount);
  if (schema_version >= 5) r.integer(point, at, "rounds", 1, kMostCount);
  const double bytes = r.positive(point, at, "bytes");
  const double mean = r.positive(point, at, "mean_s");
  const double max = r.positive(point, at, "max_s");
  if (!(p.median_s <= max))
    r.fail(at + ".max_s", json(max).dump() + " is below median_s " + json(p.median_s).dump());
  const double slack = 1e-9 * max;
  if (!(mean >= p.min_s - slack && mean <= max + slack))
    r.fail(at + ".mean_s", json(mean).dump() + " is not between min_s " + json(p.min_s).dump() +
                               " and max_s " + json(max).dump());
  const double stddev = r.number(point, at, "stddev_s");
  if (!(stddev >= 0) || !std::isfinite(stddev))
    r.fail(at + ".stddev_s", "must be finite and >= 0, got " + json(stddev).dump());
  return bytes;
}

// A point's GB/s is its bytes over the report's statistic: shown and exported beside the
// times, it must say what they say.
void check_gbps(const Reader& r, const std::string& at, const ReportPoint& p, double bytes) {
  const double gbps = bytes / p.seconds / 1e9;
  if (!agrees(p.gbps, gbps))
    r.fail(at + ".gbps", json(p.gbps).dump() + " is not the point's bytes over its time (" +
                             json(gbps).dump() + "): the report was edited or is corrupt");
}

// The set-up a CPU row depends on (ReportOrigin::threads): the CPU model and core count from
// machine.cpu, the threads from the cpu backend's entry (config.threads where it has none and
// names a count). Descriptions of the host are open: what a report lacks stays unknown.
void read_host_setup(const json& j, Report& rep) {
  const json& cpu = j["machine"]["cpu"];
  if (cpu.is_object() && cpu.contains("model") && cpu["model"].is_string())
    rep.cpu_model = printable(cpu["model"].get<std::string>());
  if (cpu.is_object() && cpu.contains("cores") && cpu["cores"].is_number_integer())
    rep.cpu_cores = int(std::clamp<std::int64_t>(cpu["cores"].get<std::int64_t>(), 0, 1 << 30));
  const auto count = [](const json& v) {
    return v.is_number_integer() ? int(std::clamp<std::int64_t>(v.get<std::int64_t>(), 0, 1 << 30))
                                 : 0;
  };
  if (j.contains("config") && j["config"].is_object() && j["config"].contains("threads"))
    rep.threads = count(j["config"]["threads"]);
  if (j.contains("backends") && j["backends"].is_array())
    for (const json& b : j["backends"])
      if (b.is_object() && b.value("name", json()) == "cpu" && b.contains("threads"))
        rep.threads = count(b["threads"]);
}

// The stored fit, checked against the one its points give (`computed`, over the stored
// region): the gates judge the points, and a report whose fit disagrees was edited.
void check_stored_fit(const Reader& r, const json& f, const std::string& where,
                      const ReadFit& computed, bool settle) {
  const double exponent = r.number(f, where, "exponent");
  const json& ci = r.field(f, where, "ci95");
  if (!ci.is_null()) {
    if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number())
      r.fail(where + ".ci95", "is not null or a [low, high] pair of numbers");
    if (!(ci[0].get<double>() <= exponent && exponent <= ci[1].get<double>()))
      r.fail(where + ".ci95", "does not contain the exponent");
  }
  const std::string regime = r.text(f, where, "regime");
  bool known = false;
  for (Regime g : {Regime::flat, Regime::sublinear, Regime::linear, Regime::superlinear})
    known = known || regime == to_string(g);
  if (!known) r.fail(where + ".regime", "'" + regime + "' is not a regime");
  // The gates read the regime word: it must be the one the exponent gives.
  if (regime != to_string(regime_of(exponent)))
    r.fail(where + ".regime",
           "'" + regime + "' is not the regime of exponent " + json(exponent).dump());
  r.positive(f, where, "per_token_s");
  r.positive(f, where, "longest_length");
  const auto mismatch = [&](const char* key, double stored, double from_points) {
    if (!agrees(stored, from_points))
      r.fail(where + "." + key, json(stored).dump() + " is not what the points give (" +
                                    json(from_points).dump() +
                                    "): the report was edited or is corrupt");
  };
  mismatch("exponent", exponent, computed.power.exponent);
  mismatch("n_points", r.number(f, where, "n_points"), computed.power.n_points);
  mismatch("marginal_s", r.number(f, where, "marginal_s"), computed.affine.marginal_s);
  mismatch("fixed_s", r.number(f, where, "fixed_s"), computed.affine.fixed_s);
  if (settle) {
    mismatch("cost_rise", r.number(f, where, "cost_rise"), computed.cost_rise);
    mismatch("cost_rise_length", r.number(f, where, "cost_rise_length"), computed.cost_rise_length);
    mismatch("cost_rise_limit", r.number(f, where, "cost_rise_limit"), 1 + kSettleRise);
  }
  const json& reached = r.field(f, where, "asymptote_reached");
  if (!reached.is_boolean()) r.fail(where + ".asymptote_reached", "is not true or false");
  if (reached.get<bool>() != computed.asymptote_reached)
    r.fail(where + ".asymptote_reached",
           std::string(reached.get<bool>() ? "true" : "false") +
               " is not what the points give: the report was edited or is corrupt");
}

// Each report under its own version's rules (asymptote_fit.hpp).
FitRules fit_rules_of(int schema_version) {
  return schema_version >= 7   ? FitRules::region
         : schema_version >= 6 ? FitRules::settled
                               : FitRules::share_only;
}

// A timed path whose fit is null: a run fits every ok path and leaves the fit out only where
// its points cannot give one (fit_error says why, and fitting them again agrees). A fit deleted
// by hand would take the path out of every gate while its points show what it does.
void check_no_fit(const Reader& r, const json& res, const std::string& where,
                  const ReportResult& out, const std::optional<double>& fit_from, FitRules rules) {
  if (out.status != Status::ok) return;
  std::string why = "no fit_error";
  if (res.contains("fit_error")) why = "fit_error \"" + r.shown(res, where, "fit_error") + "\"";
  ReadFitOptions options;
  options.fit_from = fit_from;
  options.rules = rules;
  std::optional<ReadFit> fitted;
  try {
    fitted = fit_read(out.timed_points(), options);
  } catch (const FitError&) {
    return;  // nothing to fit, as the report says
  }
  r.fail(where + ".fit", "is null (" + why + ") but the points of " + out.label() +
                             " give one (exponent " + json(fitted->power.exponent).dump() +
                             "): the report was edited or is corrupt");
}

}  // namespace

nlohmann::ordered_json origin_to_json(const ReportOrigin& o) {
  nlohmann::ordered_json j = {{"source", o.source},
                              {"machine", o.machine},
                              {"git_commit", o.git_commit},
                              {"statistic", to_string(o.statistic)},
                              {"quality", to_string(o.quality)}};
  if (!o.cpu.empty()) j["cpu"] = o.cpu;
  if (o.threads > 0) j["threads"] = o.threads;
  if (!o.cpu_model.empty()) j["cpu_model"] = o.cpu_model;
  if (o.cpu_cores > 0) j["cpu_cores"] = o.cpu_cores;
  return j;
}

std::vector<TimedPoint> ReportResult::timed_points() const {
  std::vector<TimedPoint> out;
  for (const ReportPoint& p : points) out.push_back({p.length, p.seconds});
  return out;
}

const ReportResult* Report::find(const std::string& backend, const std::string& path) const {
  for (const ReportResult& r : results)
    if (r.backend == backend && r.path == path) return &r;
  return nullptr;
}

std::string Report::gpu_model(const std::string& backend) const {
  if (gpus.empty()) return "";
  if (backend == "cuda") return gpus.front().name;
  const std::optional<int> index = device_index(backend);
  if (!index) return "";
  for (const Gpu& g : gpus)
    if (g.index == *index) return g.name;
  return "";
}

std::string Report::incompleteness() const {
  if (complete) return "";
  return plugin_exit.empty() ? "incomplete: stopped by " + signal
                             : "incomplete: a plugin ended the run with " + plugin_exit;
}

namespace {

// The document is a run report of a schema version this readbench reads: its version, or
// InputError.
int read_schema_version(const Reader& r, const json& j, const std::string& source) {
  if (j.is_object() && j.contains("ab") && !j.contains("results"))
    throw InputError(printable(source) +
                     " is an ab report (readbench ab): check, plot, export and compare read it");
  if (!j.is_object() || !j.contains("results"))
    throw InputError(source + ": not a readbench report (no 'results')");
  const json& version_field = r.field(j, "report", "schema_version");
  // 5.0 is 5, as JSON Schema's "integer" has it; 1.5, a string or 1e308 is no version.
  const double v = version_field.is_number() ? version_field.get<double>() : -1;
  const auto version = v >= 0 && v <= 1e6 && v == std::floor(v) ? std::int64_t(v) : -1;
  if (version < kOldestSchemaVersion || version > kSchemaVersion)
    r.fail("schema_version", version_field.dump() + " is not one this readbench reads (" +
                                 std::to_string(kOldestSchemaVersion) + " to " +
                                 std::to_string(kSchemaVersion) + ")");
  return int(version);
}

// tool: the readbench that wrote the report.
void read_tool(const Reader& r, const json& j, Report& rep) {
  const json& tool = r.field(j, "report", "tool");
  rep.git_commit = r.shown(tool, "tool", "git_commit");
  if (tool.is_object() && tool.contains("version") && tool["version"].is_string())
    rep.version = printable(tool["version"].get<std::string>());
}

// A plugin's exit() ended the run (exit_guard.hpp): "exit(N)" or "quick_exit()".
void read_plugin_exit(const Reader& r, const json& j, Report& rep) {
  rep.plugin_exit = r.text(j, "report", "plugin_exit");
  const std::string& e = rep.plugin_exit;
  const std::size_t digits = e.size() > 6 && e[5] == '-' ? 6 : 5;  // after "exit(" and a sign
  const bool status = e.size() > digits + 1 && e.size() <= digits + 11 && e.starts_with("exit(") &&
                      e.ends_with(")") &&
                      std::all_of(e.begin() + long(digits), e.end() - 1,
                                  [](char ch) { return ch >= '0' && ch <= '9'; });
  if (!status && e != "quick_exit()")
    r.fail("plugin_exit", json(rep.plugin_exit).dump() + " is not exit(N) or quick_exit()");
  if (j.contains("signal")) r.fail("signal", "is there beside plugin_exit");
}

// complete, and for a run that did not complete what stopped it: a signal or a plugin's exit.
void read_completion(const Reader& r, const json& j, Report& rep) {
  if (!j.contains("complete")) return;
  if (!j["complete"].is_boolean()) r.fail("complete", "is not true or false");
  rep.complete = j["complete"].get<bool>();
  if (!rep.complete && j.contains("plugin_exit")) {
    read_plugin_exit(r, j, rep);
  } else if (!rep.complete) {
    rep.signal = r.text(j, "report", "signal");
    if (signal_number(rep.signal) == 0)
      r.fail("signal", json(rep.signal).dump() + " is not SIGINT, SIGTERM or SIGHUP");
  }
  if (rep.complete && j.contains("signal"))
    r.fail("signal", "is there but the report says it is complete");
  if (rep.complete && j.contains("plugin_exit"))
    r.fail("plugin_exit", "is there but the report says it is complete");
}

// config: the statistic, the shape field by field, and the line that names dtypes, shape and
// cache.
void read_config(const Reader& r, const json& config, Report& rep) {
  rep.statistic = r.word(config, "config", "statistic", kStatisticNames);
  auto whole = [&](const char* key, int most) {
    return std::to_string(r.integer(config, "config", key, 1, most));
  };
  rep.shape = {r.shown(config, "config", "dtype"),
               r.shown(config, "config", "kv_dtype"),
               r.integer(config, "config", "batch", 1, kMaxBatch),
               r.integer(config, "config", "q_heads", 1, kMaxHeads),
               r.integer(config, "config", "kv_heads", 1, kMaxHeads),
               r.integer(config, "config", "head_dim", 1, kMaxHeadDim),
               r.integer(config, "config", "block_size", 1, kMaxBlockSize)};
  std::string dtypes = r.text(config, "config", "dtype");
  try {
    parse_query_dtype(dtypes);
  } catch (const InputError& e) {
    r.fail("config.dtype", std::string("is refused: ") + e.what());
  }
  const std::string kv = r.text(config, "config", "kv_dtype");
  try {
    validate_dtypes(parse_query_dtype(dtypes), parse_dtype(kv));
  } catch (const InputError& e) {
    r.fail("config.kv_dtype", std::string("is refused: ") + e.what());
  }
  if (kv != dtypes)
    dtypes += " q, " + r.text(config, "config", "kv_dtype") + " K/V (scale " +
              json(r.positive(config, "config", "kv_scale")).dump() + " " +
              r.shown(config, "config", "kv_scale_granularity") + ")";
  rep.config = dtypes + ", B=" + whole("batch", kMaxBatch) + " Hq=" + whole("q_heads", kMaxHeads) +
               " Hkv=" + whole("kv_heads", kMaxHeads) + " D=" + whole("head_dim", kMaxHeadDim) +
               " S=" + whole("block_size", kMaxBlockSize) + ", " +
               std::string(to_string(r.word(config, "config", "cache", kCacheStateNames))) +
               " cache";
}

// quality: the verdict and its reasons. Reports written before the verdict existed carry none:
// they read as clean.
void read_quality(const Reader& r, const json& j, Report& rep) {
  if (!j.contains("quality")) return;
  const json& q = r.field(j, "report", "quality");
  rep.quality = r.word(q, "quality", "verdict", kQualityVerdictNames);
  for (const json& why : r.array(q, "quality", "reasons"))
    if (why.is_string()) rep.quality_reasons.push_back(printable(why.get<std::string>()));
}

// machine and backends[]: the host, its GPUs, its CPU and each backend's kernels and launches.
void read_machine(const Reader& r, const json& j, const json& machine, Report& rep) {
  rep.machine = r.shown(machine, "machine", "hostname");
  rep.hostname = rep.machine;
  std::string gpus;
  for (const json& g : r.array(machine, "machine", "gpus"))
    if (g.is_object() && g.contains("name") && g["name"].is_string()) {
      const std::string name = printable(g["name"].get<std::string>());
      gpus += (gpus.empty() ? "" : ", ") + name;
      Report::Gpu gpu{std::nullopt, name};
      if (g.contains("index") && g["index"].is_number_integer())
        gpu.index = g["index"].get<std::int64_t>();
      rep.gpus.push_back(std::move(gpu));
    }
  if (!gpus.empty()) rep.machine += " (" + gpus + ")";
  // The architecture and the CPU kernels: optional inside machine.cpu (reports before them
  // lack them); machine.cpu itself every report has.
  const json& cpu = r.field(machine, "machine", "cpu");
  if (cpu.is_object() && cpu.contains("arch")) rep.cpu = r.shown(cpu, "machine.cpu", "arch");
  read_host_setup(j, rep);
  if (j.contains("backends") && j["backends"].is_array())
    for (const json& b : j["backends"])
      if (b.is_object() && b.value("name", json()) == "cpu" && b.contains("kernels") &&
          b["kernels"].is_string())
        rep.cpu += (rep.cpu.empty() ? "" : ", ") +
                   ("CPU kernels " + printable(b["kernels"].get<std::string>()));
  if (j.contains("backends") && j["backends"].is_array())
    for (const json& b : j["backends"])
      if (b.is_object() && b.contains("name") && b["name"].is_string() && b.contains("launch") &&
          b["launch"].is_string())
        rep.launches[b["name"].get<std::string>()] = printable(b["launch"].get<std::string>());
}

// Each backend's read ceiling, for the effective bandwidth of its fits.
std::map<std::string, double> read_ceilings(const Reader& r, const json& machine) {
  std::map<std::string, double> ceilings;
  const json& bandwidths = r.array(machine, "machine", "bandwidths");
  for (std::size_t i = 0; i < bandwidths.size(); ++i) {
    const json& b = bandwidths[i];
    if (b.is_object() && b.contains("backend") && b["backend"].is_string() &&
        b.contains("read_gbps") && b["read_gbps"].is_number())
      ceilings[b["backend"].get<std::string>()] =
          r.positive(b, "machine.bandwidths[" + std::to_string(i) + "]", "read_gbps");
  }
  return ceilings;
}

// The region every fit of the run was asked for: "auto" (empty) or a length (config.fit_from).
std::optional<double> read_config_fit_from(const Reader& r, const json& config) {
  std::optional<double> config_fit_from;
  if (const json& from = r.field(config, "config", "fit_from"); from != "auto") {
    const double v = r.number(config, "config", "fit_from");
    if (!(v >= 0) || !std::isfinite(v))
      r.fail("config.fit_from", "must be auto or a finite length >= 0, got " + from.dump());
    config_fit_from = v;
  }
  return config_fit_from;
}

// A result's backend, path, status and reason; one result per backend and path.
void read_result_identity(const Reader& r, const json& res, const std::string& where,
                          const Report& rep, ReportResult& out) {
  out.backend = r.text(res, where, "backend");
  if (!valid_backend_name(out.backend))
    r.fail(where + ".backend", json(out.backend).dump() + " is not cpu, cuda or cuda:N");
  out.path = r.text(res, where, "path");
  try {
    parse_path(out.path);
  } catch (const InputError&) {
    r.fail(where + ".path", json(out.path).dump() +
                                " is not gather, fused or plugin:NAME (1 to 64 of A-Z, a-z, "
                                "0-9, '_', '.' and '-')");
  }
  if (rep.find(out.backend, out.path))
    r.fail(where, "repeats " + out.backend + "/" + out.path + ": one result per backend and path");
  out.status = r.word(res, where, "status", kStatusNames);
  out.reason = r.shown(res, where, "reason");
}

// A path that fails a correctness check is never timed: an ok result with a failed check was
// edited.
void check_checks(const Reader& r, const json& res, const std::string& where,
                  const ReportResult& out) {
  const json& checks = r.array(res, where, "checks");
  for (std::size_t k = 0; k < checks.size(); ++k) {
    const std::string at = where + ".checks[" + std::to_string(k) + "]";
    const json& passed = r.field(checks[k], at, "passed");
    if (!passed.is_boolean()) r.fail(at + ".passed", "is not true or false");
    if (out.status == Status::ok && !passed.get<bool>())
      r.fail(at, "failed but the result's status is ok");
  }
}

// One point: its length after the one before, its times in order, its sample statistics.
// Returns its bytes, checked against its GB/s once the fit is.
double read_point(const Reader& r, const json& point, const std::string& at, const Report& rep,
                  ReportResult& out) {
  ReportPoint p;
  // Lengths are token counts; 2^53 keeps every one exact as a double.
  p.length = double(r.integer(point, at, "length", 1, std::int64_t(1) << 53));
  p.min_s = r.positive(point, at, "min_s");
  p.median_s = r.positive(point, at, "median_s");
  p.gbps = r.positive(point, at, "gbps");  // bytes over a positive time
  if (point.contains("ceiling_fraction")) r.positive(point, at, "ceiling_fraction");
  p.kv_bytes = point.contains("kv_bytes") ? r.positive(point, at, "kv_bytes") : 0;
  if (point.contains("contended")) {
    if (!point["contended"].is_boolean()) r.fail(at + ".contended", "is not true or false");
    p.contended = point["contended"].get<bool>();
  }
  p.seconds = rep.statistic == Statistic::min ? p.min_s : p.median_s;
  if (!out.points.empty() && !(p.length > out.points.back().length))
    r.fail(at + ".length", json(p.length).dump() + " does not follow " +
                               json(out.points.back().length).dump() + ": lengths must increase");
  if (!(p.min_s <= p.median_s))
    r.fail(at + ".min_s", json(p.min_s).dump() + " is above median_s " + json(p.median_s).dump());
  const double bytes = check_point_statistics(r, point, at, p, rep.schema_version);
  out.points.push_back(p);
  return bytes;
}

// A result's points; each point's bytes, in order. An unavailable or failed path is never
// timed: points beside that status were put there by hand, and would be judged as though the
// path had run.
std::vector<double> read_points(const Reader& r, const json& res, const std::string& where,
                                const Report& rep, ReportResult& out) {
  const json& points = r.array(res, where, "points");
  std::vector<double> bytes;
  for (std::size_t k = 0; k < points.size(); ++k)
    bytes.push_back(
        read_point(r, points[k], where + ".points[" + std::to_string(k) + "]", rep, out));
  if (out.status != Status::ok && !out.points.empty())
    r.fail(where + ".points", "holds " + std::to_string(out.points.size()) + " points of " +
                                  out.label() + " but its status is " +
                                  std::string(to_string(out.status)) +
                                  ": a path that is not ok is never timed");
  return bytes;
}

// An auto region is the rule's, not the report's to state: one moved by hand would choose the
// lengths the gate compares.
void check_auto_region(const Reader& r, const std::string& at, const ReportResult& out,
                       const ReadFitOptions& options, double fit_from) {
  ReadFitOptions automatic = options;
  automatic.fit_from.reset();
  double rule = 0;
  try {
    rule = fit_read(out.timed_points(), automatic).fit_from;
  } catch (const FitError& e) {
    r.fail(at, std::string("cannot be computed again from the points: ") + e.what());
  }
  if (!agrees(fit_from, rule))
    r.fail(at + ".fit_from", json(fit_from).dump() +
                                 " is not where the auto rule starts on these points (" +
                                 json(rule).dump() + "): the report was edited or is corrupt");
}

// The stored fit, computed again from the points over its stored region (each report under its
// own version's rules, asymptote_fit.hpp) and checked against them.
void read_stored_fit(const Reader& r, const json& fit, const std::string& at, const Report& rep,
                     ReportResult& out) {
  const double fit_from = r.number(fit, at, "fit_from");
  if (!(fit_from >= 0) || !std::isfinite(fit_from))
    r.fail(at + ".fit_from", "must be a finite length >= 0, got " + json(fit_from).dump());
  ReadFitOptions options;
  options.fit_from = fit_from;
  options.rules = fit_rules_of(rep.schema_version);
  if (!out.points.empty() && out.points[0].kv_bytes > 0)
    options.kv_bytes_per_token = out.points[0].kv_bytes / out.points[0].length;
  if (const auto c = rep.read_ceilings_gbps.find(out.backend); c != rep.read_ceilings_gbps.end())
    options.read_ceiling_gbps = c->second;
  try {
    out.fit = fit_read(out.timed_points(), options);
  } catch (const FitError& e) {
    r.fail(at, std::string("cannot be computed again from the points: ") + e.what());
  }
  out.fit->fit_from_auto = fit.contains("fit_from_auto") && fit["fit_from_auto"].is_boolean() &&
                           fit["fit_from_auto"].get<bool>();
  if (out.fit->fit_from_auto) check_auto_region(r, at, out, options, fit_from);
  check_stored_fit(r, fit, at, *out.fit, options.rules != FitRules::share_only);
}

// One result: what it is, its checks, its points, its grid and its fit.
ReportResult read_result(const Reader& r, const json& res, const std::string& where,
                         const Report& rep, const std::optional<double>& config_fit_from) {
  ReportResult out;
  read_result_identity(r, res, where, rep, out);
  check_checks(r, res, where, out);
  const std::vector<double> bytes = read_points(r, res, where, rep, out);
  if (res.contains("grid")) {
    out.grid_stop = r.word(r.field(res, where, "grid"), where + ".grid", "stop", kGridStopNames);
    out.grid_reason = r.text(res["grid"], where + ".grid", "reason");
  }
  const json& fit = r.field(res, where, "fit");
  if (out.status != Status::ok && !fit.is_null())
    r.fail(where + ".fit", "is there but the status of " + out.label() + " is " +
                               std::string(to_string(out.status)) +
                               ": a path that is not ok is never fitted");
  if (fit.is_null() && !out.points.empty())
    check_no_fit(r, res, where, out, config_fit_from, fit_rules_of(rep.schema_version));
  if (!fit.is_null()) read_stored_fit(r, fit, where + ".fit", rep, out);
  for (std::size_t k = 0; k < out.points.size(); ++k)
    check_gbps(r, where + ".points[" + std::to_string(k) + "]", out.points[k], bytes[k]);
  return out;
}

}  // namespace

Report report_from_json(const json& j, const std::string& source) {
  const Reader r(source);
  Report rep;
  rep.schema_version = read_schema_version(r, j, source);
  rep.source = printable(source);  // a file name, shown in tables and CSV cells
  read_tool(r, j, rep);
  read_completion(r, j, rep);
  const json& config = r.field(j, "report", "config");
  read_config(r, config, rep);
  read_quality(r, j, rep);
  const json& machine = r.field(j, "report", "machine");
  read_machine(r, j, machine, rep);
  rep.read_ceilings_gbps = read_ceilings(r, machine);
  const std::optional<double> config_fit_from = read_config_fit_from(r, config);
  const json& results = r.array(j, "report", "results");
  for (std::size_t i = 0; i < results.size(); ++i)
    rep.results.push_back(
        read_result(r, results[i], "results[" + std::to_string(i) + "]", rep, config_fit_from));
  return rep;
}

Report parse_report(const std::string& text, const std::string& source) {
  return report_from_json(parse_json_input(text, source), source);
}

}  // namespace readbench
