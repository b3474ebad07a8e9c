#include "report/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/statistics.hpp"

namespace readbench {

namespace {

// 1 / the 0.75 quantile of the standard normal: MAD times this estimates a normal sigma, so a
// robust z reads like an ordinary one for normal data (Iglewicz and Hoaglin).
constexpr double kMadScale = 0.6745;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double v) {
  return (v >= 0 ? "+" : "") + fixed(100 * v, 1) + "%";
}

std::string z_text(double z) {
  if (std::isinf(z)) return z > 0 ? "+inf" : "-inf";
  return (z >= 0 ? "+" : "") + fixed(z, 1);
}

// cuda and cuda:N are the same kind of device; cpu is another.
std::string backend_kind(const std::string& backend) {
  return backend.rfind("cuda", 0) == 0 ? "cuda" : backend;
}

int severity(FleetVerdict v) {
  switch (v) {
    case FleetVerdict::fail:
      return 3;
    case FleetVerdict::warn:
      return 2;
    case FleetVerdict::unjudged:
      return 1;
    case FleetVerdict::ok:
      return 0;
  }
  return 0;
}

// Judges one figure against its basis; `lower_is_bad` judges one side only (a higher read
// ceiling is no fault), otherwise both (a device much faster than its peers is no peer either).
// Appends to `reason` when the figure passes a threshold, and to `spread` when it passes a band
// but not the z (a deviation the group's own spread explains).
FleetVerdict judge_figure(const FleetFigure& f, const char* name, bool lower_is_bad,
                          const FleetOptions& o, std::string& reason, std::string& spread) {
  if (!f.deviation) return FleetVerdict::ok;
  const double d = *f.deviation;
  const double size = lower_is_bad ? -d : std::abs(d);
  // The z condition, where there is one: a deviation within the group's own spread is noise.
  const bool beyond_spread = !f.z || std::abs(*f.z) > o.z;
  FleetVerdict v = FleetVerdict::ok;
  if (size > o.fail && beyond_spread)
    v = FleetVerdict::fail;
  else if (size > o.warn && beyond_spread)
    v = FleetVerdict::warn;
  if (v != FleetVerdict::ok)
    reason += std::string(reason.empty() ? "" : "; ") + name + " " + percent(d) +
              (f.z ? " (z " + z_text(*f.z) + ")" : "");
  else if (size > o.warn && f.z)
    spread += std::string(spread.empty() ? "" : "; ") + name + " " + percent(d) + " (z " +
              z_text(*f.z) + ")";
  return v;
}

FleetFigure against(std::optional<double> value, double median, std::optional<double> mad) {
  FleetFigure f;
  f.value = value;
  f.median = median;
  if (value && median > 0) {
    f.deviation = (*value - median) / median;
    if (mad) f.z = robust_z(*value, median, *mad);
  }
  return f;
}

struct Basis {
  double median = 0;
  std::optional<double> mad;
};

// The median (and MAD) of the figures the devices have; none where none has it.
template <class Get>
std::optional<Basis> basis_of(const std::vector<const FleetDevice*>& devices, Get get,
                              bool with_mad) {
  std::vector<double> v;
  v.reserve(devices.size());
  for (const FleetDevice* d : devices)
    if (const std::optional<double> x = get(*d)) v.push_back(*x);
  if (v.empty()) return std::nullopt;
  Basis b;
  b.median = median_of(v);
  if (with_mad) b.mad = mad_of(v, b.median);
  return b;
}

void judge(FleetDevice& d, const std::optional<Basis>& marginal,
           const std::optional<Basis>& ceiling, const std::optional<Basis>& fraction,
           const FleetOptions& o) {
  if (marginal) d.marginal = against(d.marginal_s, marginal->median, marginal->mad);
  if (ceiling) d.ceiling = against(d.ceiling_gbps, ceiling->median, ceiling->mad);
  if (fraction) d.ceiling_fraction = against(d.fraction, fraction->median, fraction->mad);
  std::string reason, spread;
  const FleetVerdict v =
      std::max({judge_figure(d.marginal, "marginal cost", false, o, reason, spread),
                judge_figure(d.ceiling, "read ceiling", true, o, reason, spread),
                judge_figure(d.ceiling_fraction, "fraction of ceiling", true, o, reason, spread)},
               [](FleetVerdict a, FleetVerdict b) { return severity(a) < severity(b); });
  d.verdict = v;
  d.reason = v != FleetVerdict::ok ? reason
             : spread.empty()      ? "within " + fixed(100 * o.warn, 1) + "% of the " + d.basis
                                   : spread + ": within the group's own spread (|z| up to " +
                                    fixed(o.z, 1) + ")";
  if (!d.contended.empty()) d.reason += " (judged as asked though its run was " + d.contended + ")";
}

FleetKey key_of(const Report& r, const ReportResult& res) {
  const std::string kind = backend_kind(res.backend);
  std::string model = kind == "cpu" ? r.cpu_model : r.gpu_model(res.backend);
  return {model, kind, res.path, r.config, std::string(to_string(r.statistic)), r.version};
}

}  // namespace

double mad_of(const std::vector<double>& v, double median) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::abs(x - median));
  return median_of(std::move(dev));
}

double robust_z(double x, double median, double mad) {
  if (mad > 0) return kMadScale * (x - median) / mad;
  if (x == median) return 0;
  return x > median ? std::numeric_limits<double>::infinity()
                    : -std::numeric_limits<double>::infinity();
}

std::string_view to_string(FleetVerdict v) {
  switch (v) {
    case FleetVerdict::ok:
      return "ok";
    case FleetVerdict::warn:
      return "warn";
    case FleetVerdict::fail:
      return "fail";
    case FleetVerdict::unjudged:
      return "unjudged";
  }
  return "";
}

std::string FleetKey::differences(const FleetKey& o) const {
  std::string out;
  const auto diff = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b)
      out += (out.empty() ? "" : ", ") + std::string(name) + " '" + a + "' vs '" + b + "'";
  };
  diff("model", model, o.model);
  diff("backend", backend_kind, o.backend_kind);
  diff("path", path, o.path);
  diff("config", config, o.config);
  diff("statistic", statistic, o.statistic);
  diff("version", version, o.version);
  return out;
}

std::string FleetKey::name() const {
  return (model.empty() ? "unknown model" : model) + " " + backend_kind + "/" + path + ", " +
         config + ", " + statistic + ", readbench " + (version.empty() ? "?" : version);
}

bool FleetJudgement::any_fail() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const FleetDevice& d) { return d.verdict == FleetVerdict::fail; });
}

bool FleetJudgement::any_unjudged() const {
  return devices.empty() || std::any_of(devices.begin(), devices.end(), [](const FleetDevice& d) {
           return d.verdict == FleetVerdict::unjudged;
         });
}

int FleetJudgement::exit_code() const {
  if (any_fail()) return 1;
  return any_unjudged() ? 4 : 0;
}

FleetJudgement judge_fleet(const std::vector<Report>& reports, std::vector<FleetSkip> skipped,
                           const std::optional<Report>& reference, const FleetOptions& o) {
  FleetJudgement j;
  j.skipped = std::move(skipped);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  std::map<std::string, std::size_t> group_of;  // FleetKey::name() -> index in j.groups
  for (const Report& r : reports) {
    // A contended or stopped run measured something else than the device: named, not judged.
    if (!r.complete) {
      j.skipped.push_back({r.source, "", r.incompleteness()});
      continue;
    }
    std::string contended;
    if (r.quality == QualityVerdict::contended) {
      contended = "contended";
      for (const std::string& q : r.quality_reasons)
        contended += (contended == "contended" ? ": " : "; ") + q;
      if (!o.judge_contended) {
        j.skipped.push_back({r.source, "", contended});
        continue;
      }
    }
    if (r.results.empty()) j.skipped.push_back({r.source, "", "no results"});
    for (const ReportResult& res : r.results) {
      if (res.status != Status::ok) {
        j.skipped.push_back(
            {r.source, res.label(),
             std::string(to_string(res.status)) + (res.reason.empty() ? "" : ": " + res.reason)});
        continue;
      }
      if (!res.fit) {
        j.skipped.push_back({r.source, res.label(), "no fit"});
        continue;
      }
      if (!seen.insert({r.hostname, res.backend, res.path}).second) {
        j.skipped.push_back(
            {r.source, res.label(),
             "duplicate: " + r.hostname + " " + res.label() + " is already in an earlier report"});
        continue;
      }
      FleetDevice d;
      d.source = r.source;
      d.host = r.hostname;
      d.backend = res.backend;
      d.path = res.path;
      d.key = key_of(r, res);
      d.shape = r.shape;
      d.contended = contended;
      d.marginal_s = res.fit->affine.marginal_s;
      d.fixed_s = res.fit->affine.fixed_s;
      d.exponent = res.fit->power.exponent;
      if (const auto c = r.read_ceilings_gbps.find(res.backend); c != r.read_ceilings_gbps.end())
        d.ceiling_gbps = c->second;
      d.fraction = res.fit->ceiling_fraction;
      const auto [it, added] = group_of.try_emplace(d.key.name(), j.groups.size());
      if (added) j.groups.push_back({d.key, 0, "", ""});
      d.group = it->second;
      ++j.groups[d.group].members;
      j.devices.push_back(std::move(d));
    }
  }

  std::vector<std::vector<FleetDevice*>> members(j.groups.size());
  for (FleetDevice& d : j.devices) members[d.group].push_back(&d);
  for (std::size_t g = 0; g < j.groups.size(); ++g) {
    FleetGroup& group = j.groups[g];
    std::vector<const FleetDevice*> basis_devices(members[g].begin(), members[g].end());
    bool with_mad = true;
    if (group.members < std::size_t(o.min_group)) {
      std::vector<FleetDevice> refs;
      if (reference)
        for (const ReportResult& res : reference->results)
          if (res.status == Status::ok && res.fit && key_of(*reference, res) == group.key) {
            FleetDevice ref;
            ref.marginal_s = res.fit->affine.marginal_s;
            if (const auto c = reference->read_ceilings_gbps.find(res.backend);
                c != reference->read_ceilings_gbps.end())
              ref.ceiling_gbps = c->second;
            ref.fraction = res.fit->ceiling_fraction;
            refs.push_back(ref);
          }
      const std::string small = std::to_string(group.members) + " device" +
                                (group.members == 1 ? "" : "s") + ", fewer than --min-group " +
                                std::to_string(o.min_group);
      if (refs.empty()) {
        group.basis = small + (reference ? ", and the reference " + reference->source +
                                               " has no result that matches"
                                         : ", and no --reference");
        for (FleetDevice* d : members[g]) {
          d->verdict = FleetVerdict::unjudged;
          d->reason = "cannot be judged: " + group.basis;
        }
        continue;
      }
      group.basis = "reference " + reference->source + " (" + small + ")";
      basis_devices.clear();
      for (const FleetDevice& r : refs) basis_devices.push_back(&r);
      with_mad = false;  // one machine's figures: a deviation from them, no spread to weigh
      const auto m = basis_of(
          basis_devices, [](const FleetDevice& d) { return std::optional(d.marginal_s); }, false);
      const auto c = basis_of(
          basis_devices, [](const FleetDevice& d) { return d.ceiling_gbps; }, false);
      const auto f = basis_of(
          basis_devices, [](const FleetDevice& d) { return d.fraction; }, false);
      for (FleetDevice* d : members[g]) {
        d->basis = "reference";
        judge(*d, m, c, f, o);
      }
      continue;
    }
    group.basis = "median of " + std::to_string(group.members);
    const auto m = basis_of(
        basis_devices, [](const FleetDevice& d) { return std::optional(d.marginal_s); }, with_mad);
    const auto c = basis_of(
        basis_devices, [](const FleetDevice& d) { return d.ceiling_gbps; }, with_mad);
    const auto f = basis_of(
        basis_devices, [](const FleetDevice& d) { return d.fraction; }, with_mad);
    for (FleetDevice* d : members[g]) {
      d->basis = "group median";
      judge(*d, m, c, f, o);
    }
  }

  // Largest group first; the others name how they differ from it (they are never mixed).
  std::vector<std::size_t> order(j.groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return j.groups[a].members > j.groups[b].members;
  });
  std::vector<std::size_t> rank(order.size());
  std::vector<FleetGroup> groups;
  for (std::size_t i = 0; i < order.size(); ++i) {
    rank[order[i]] = i;
    groups.push_back(j.groups[order[i]]);
    if (i > 0) groups.back().difference = groups.back().key.differences(groups.front().key);
  }
  j.groups = std::move(groups);
  for (FleetDevice& d : j.devices) d.group = rank[d.group];

  std::stable_sort(j.devices.begin(), j.devices.end(),
                   [](const FleetDevice& a, const FleetDevice& b) {
                     if (severity(a.verdict) != severity(b.verdict))
                       return severity(a.verdict) > severity(b.verdict);
                     const double da = a.marginal.deviation ? std::abs(*a.marginal.deviation) : 0;
                     const double db = b.marginal.deviation ? std::abs(*b.marginal.deviation) : 0;
                     return da > db;
                   });
  return j;
}

std::string fleet_markdown(const FleetJudgement& j, const FleetOptions& o) {
  std::string out;
  std::size_t counts[4] = {};
  for (const FleetDevice& d : j.devices) ++counts[std::size_t(d.verdict)];
  out += "fleet: " + std::to_string(j.devices.size()) + " devices in " +
         std::to_string(j.groups.size()) + " group" + (j.groups.size() == 1 ? "" : "s") + ": " +
         std::to_string(counts[2]) + " fail, " + std::to_string(counts[1]) + " warn, " +
         std::to_string(counts[0]) + " ok, " + std::to_string(counts[3]) + " unjudged; " +
         std::to_string(j.skipped.size()) + " skipped (warn beyond " + fixed(100 * o.warn, 1) +
         "%, fail beyond " + fixed(100 * o.fail, 1) + "%, |z| > " + fixed(o.z, 1) + ")\n\n";
  for (std::size_t g = 0; g < j.groups.size(); ++g) {
    const FleetGroup& group = j.groups[g];
    out += "group " + std::to_string(g + 1) + ": " + group.key.name() + ": " +
           std::to_string(group.members) + " device" + (group.members == 1 ? "" : "s") +
           ", judged against " + group.basis +
           (group.difference.empty() ? "" : "; differs from group 1 in " + group.difference) + "\n";
  }
  out +=
      "\n| verdict | host | device | path | group | marginal ns/token | vs median | z | read "
      "ceiling GB/s | vs median | fraction | vs median | reason |\n"
      "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  const auto dev = [](const FleetFigure& f) { return f.deviation ? percent(*f.deviation) : "-"; };
  for (const FleetDevice& d : j.devices) {
    out += "| " + std::string(to_string(d.verdict)) + " | " + d.host + " | " + d.backend + " | " +
           d.path + " | " + std::to_string(d.group + 1) + " | " + fixed(d.marginal_s * 1e9, 4) +
           " | " + dev(d.marginal) + " | " + (d.marginal.z ? z_text(*d.marginal.z) : "-") + " | " +
           (d.ceiling_gbps ? fixed(*d.ceiling_gbps, 1) : "-") + " | " + dev(d.ceiling) + " | " +
           (d.fraction ? fixed(*d.fraction, 3) : "-") + " | " + dev(d.ceiling_fraction) + " | " +
           d.reason + " |\n";
  }
  if (!j.skipped.empty()) {
    out += "\nnot judged:\n";
    for (const FleetSkip& s : j.skipped)
      out += "- " + s.source + (s.what.empty() ? "" : " " + s.what) + ": " + s.reason + "\n";
  }
  return out;
}

nlohmann::ordered_json fleet_to_json(const FleetJudgement& j, const FleetOptions& o) {
  using nlohmann::ordered_json;
  const auto opt = [](const std::optional<double>& v) {
    return v && std::isfinite(*v) ? ordered_json(*v) : ordered_json(nullptr);
  };
  const auto figure = [&](const FleetFigure& f) {
    ordered_json z = opt(f.z);
    // An infinite z (a group without spread) is written as a word: JSON has no infinity.
    if (f.z && std::isinf(*f.z)) z = *f.z > 0 ? "+inf" : "-inf";
    return ordered_json{{"value", opt(f.value)},
                        {"median", opt(f.median)},
                        {"deviation", opt(f.deviation)},
                        {"z", z}};
  };
  ordered_json devices = ordered_json::array();
  for (const FleetDevice& d : j.devices)
    devices.push_back({{"verdict", to_string(d.verdict)},
                       {"reason", d.reason},
                       {"source", d.source},
                       {"host", d.host},
                       {"backend", d.backend},
                       {"path", d.path},
                       {"group", d.group + 1},
                       {"marginal_s", figure(d.marginal)},
                       {"read_ceiling_gbps", figure(d.ceiling)},
                       {"ceiling_fraction", figure(d.ceiling_fraction)}});
  ordered_json groups = ordered_json::array();
  for (std::size_t g = 0; g < j.groups.size(); ++g) {
    const FleetGroup& group = j.groups[g];
    groups.push_back({{"group", g + 1},
                      {"model", group.key.model},
                      {"backend", group.key.backend_kind},
                      {"path", group.key.path},
                      {"config", group.key.config},
                      {"statistic", group.key.statistic},
                      {"version", group.key.version},
                      {"members", group.members},
                      {"basis", group.basis},
                      {"differs", group.difference}});
  }
  ordered_json skipped = ordered_json::array();
  for (const FleetSkip& s : j.skipped)
    skipped.push_back({{"source", s.source}, {"result", s.what}, {"reason", s.reason}});
  const int code = j.exit_code();
  return {{"verdict", code == 1   ? "fail"
                      : code == 4 ? "cannot judge"
                                  : "ok"},
          {"options", {{"warn", o.warn}, {"fail", o.fail}, {"z", o.z}, {"min_group", o.min_group}}},
          {"groups", groups},
          {"devices", devices},
          {"skipped", skipped}};
}

}  // namespace readbench
