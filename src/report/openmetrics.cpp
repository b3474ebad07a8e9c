#include "report/openmetrics.hpp"

#include <charconv>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

namespace readbench {

namespace {

struct Family {
  const char* name;  // ends with its unit, as OpenMetrics requires of a family with one
  const char* unit;  // empty: none
  const char* help;
  std::function<std::optional<double>(const Report&, const ReportResult&)> value;
};

std::optional<double> ceiling_bytes_per_second(const Report& r, const ReportResult& res) {
  const auto c = r.read_ceilings_gbps.find(res.backend);
  if (c == r.read_ceilings_gbps.end()) return std::nullopt;
  return c->second * 1e9;
}

const Family kFamilies[] = {
    {"readbench_marginal_cost_seconds", "seconds",
     "Time each further token of history adds to a read (the affine fit's slope), per token",
     [](const Report&, const ReportResult& res) -> std::optional<double> {
       return res.fit->affine.marginal_s;
     }},
    {"readbench_fixed_cost_seconds", "seconds",
     "Time of a read at no history (the affine fit's intercept; may be negative)",
     [](const Report&, const ReportResult& res) -> std::optional<double> {
       return res.fit->affine.fixed_s;
     }},
    {"readbench_exponent", "", "Exponent p of the fit t = c * L^p over the fitted lengths",
     [](const Report&, const ReportResult& res) -> std::optional<double> {
       return res.fit->power.exponent;
     }},
    {"readbench_read_ceiling_bytes_per_second", "bytes_per_second",
     "The backend's measured memory read bandwidth", ceiling_bytes_per_second},
    {"readbench_ceiling_fraction_ratio", "ratio",
     "Fraction of the read ceiling the read reaches per token (K/V bytes per token over the "
     "marginal cost, over the ceiling)",
     [](const Report&, const ReportResult& res) { return res.fit->ceiling_fraction; }},
};

std::string number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

std::string labels(const Report& r, const ReportResult& res) {
  const bool cpu = res.backend == "cpu";
  const std::string model = cpu ? r.cpu_model : r.gpu_model(res.backend);
  const std::pair<const char*, std::string> pairs[] = {
      {"host", r.hostname},
      {"device", res.backend},
      {"gpu_model", model},
      {"backend", res.backend.rfind("cuda", 0) == 0 ? "cuda" : res.backend},
      {"path", res.path},
      {"batch", std::to_string(r.shape.batch)},
      {"q_heads", std::to_string(r.shape.q_heads)},
      {"kv_heads", std::to_string(r.shape.kv_heads)},
      {"head_dim", std::to_string(r.shape.head_dim)},
      {"dtype", r.shape.dtype},
      {"kv_dtype", r.shape.kv_dtype},
  };
  std::string out = "{";
  for (const auto& [k, v] : pairs)
    out += std::string(out.size() > 1 ? "," : "") + k + "=\"" + openmetrics_label_value(v) + "\"";
  return out + "}";
}

}  // namespace

std::string openmetrics_label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string openmetrics_text(const std::vector<const Report*>& reports) {
  std::string out;
  for (const Family& f : kFamilies) {
    out += std::string("# TYPE ") + f.name + " gauge\n";
    if (*f.unit) out += std::string("# UNIT ") + f.name + " " + f.unit + "\n";
    out += std::string("# HELP ") + f.name + " " + f.help + "\n";
    // One sample per label set: a second report of the same host, device and path (a rerun)
    // would repeat a series, which OpenMetrics forbids; the first stands.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const Report* r : reports)
      for (const ReportResult& res : r->results) {
        if (!res.timed() || !res.fit) continue;
        if (!seen.insert({r->hostname, res.backend, res.path}).second) continue;
        if (const std::optional<double> v = f.value(*r, res))
          out += f.name + labels(*r, res) + " " + number(*v) + "\n";
      }
  }
  return out + "# EOF\n";
}

std::string openmetrics_text(const Report& report) {
  return openmetrics_text({&report});
}

}  // namespace readbench
