#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "report/fit_json.hpp"
#include "report/format.hpp"

namespace readbench {

namespace {

bool timed(const ReportResult* r) {
  return r && r->status == "ok" && !r->points.empty();
}

const ReportPoint* point_at(const ReportResult& r, double length) {
  for (const ReportPoint& p : r.points)
    if (p.length == length) return &p;
  return nullptr;
}

std::optional<double> common_longest(const std::vector<const ReportResult*>& results) {
  std::optional<double> best;
  for (const ReportPoint& p : results[0]->points) {
    const bool everywhere = std::all_of(results.begin(), results.end(),
                                        [&](auto* r) { return point_at(*r, p.length) != nullptr; });
    if (everywhere && (!best || p.length > *best)) best = p.length;
  }
  return best;
}

std::string lengths_of(const ReportResult& r) {
  std::string s;
  for (const ReportPoint& p : r.points) {
    if (!s.empty()) s += ',';
    s += strprintf("%.0f", p.length);
  }
  return s;
}

CompareEntry entry_for(const ReportResult* r, double length) {
  CompareEntry e;
  if (!r) {
    e.status = "missing";
    return e;
  }
  e.reason = r->reason;
  e.status = r->status != "ok" ? r->status : r->points.empty() ? "not timed" : "ok";
  if (e.status != "ok") return e;
  e.seconds = point_at(*r, length)->seconds;
  e.per_token_s = *e.seconds / length;
  e.fit = r->fit;
  return e;
}

using Key = std::pair<std::string, std::string>;  // backend, path

}  // namespace

Comparison compare_reports(const std::vector<Report>& reports) {
  if (reports.size() < 2)
    throw InputError("compare needs at least two reports, got " + std::to_string(reports.size()));
  Comparison c;
  for (const Report& r : reports)
    c.reports.push_back({r.source, r.machine, r.git_commit, r.statistic});

  std::vector<Key> keys;  // timed in some report, in the order they first appear
  for (const Report& rep : reports)
    for (const ReportResult& r : rep.results)
      if (timed(&r) && std::find(keys.begin(), keys.end(), Key{r.backend, r.path}) == keys.end())
        keys.emplace_back(r.backend, r.path);
  const auto timed_everywhere = [&](const Key& k) {
    return std::all_of(reports.begin(), reports.end(),
                       [&](const Report& rep) { return timed(rep.find(k.first, k.second)); });
  };
  if (std::none_of(keys.begin(), keys.end(), timed_everywhere))
    throw InputError("no backend/path is timed in every report");

  for (const auto& [backend, path] : keys) {
    std::vector<const ReportResult*> found, have;
    for (const Report& rep : reports) {
      found.push_back(rep.find(backend, path));
      if (timed(found.back())) have.push_back(found.back());
    }
    const auto length = common_longest(have);
    if (!length) {
      std::string lists;
      for (std::size_t i = 0; i < reports.size(); ++i)
        if (timed(found[i]))
          lists += (lists.empty() ? "" : "; ") + reports[i].source + ": " + lengths_of(*found[i]);
      throw InputError(backend + "/" + path +
                       ": no length is common to the reports that timed it (" + lists + ")");
    }
    CompareRow row{backend, path, *length, {}};
    for (const ReportResult* r : found) row.entries.push_back(entry_for(r, *length));
    const CompareEntry first = row.entries[0];
    for (CompareEntry& e : row.entries) {
      if (e.per_token_s && first.per_token_s && *first.per_token_s > 0)
        e.cost_ratio = *e.per_token_s / *first.per_token_s;
      if (e.fit && first.fit) e.exponent_diff = e.fit->exponent - first.fit->exponent;
    }
    c.rows.push_back(std::move(row));
  }
  return c;
}

namespace {

// Three significant digits without an exponent: 1234, 12.3, 0.0123.
std::string sig3(double v) {
  if (v == 0 || !std::isfinite(v)) return strprintf("%g", v);
  const int decimals = std::max(0, 2 - int(std::floor(std::log10(std::abs(v)))));
  return strprintf("%.*f", decimals, v);
}

std::string no_numbers(const CompareEntry& e) {
  return e.reason.empty() ? e.status : e.status + ": " + e.reason;
}

std::string cost_cell(const CompareEntry& e, bool reference) {
  if (!e.per_token_s) return no_numbers(e);
  std::string s = sig3(*e.per_token_s * 1e9);
  if (!reference && e.cost_ratio) s += " (×" + sig3(*e.cost_ratio) + ")";
  return s;
}

std::string exponent_cell(const CompareEntry& e, bool reference) {
  if (e.status != "ok") return no_numbers(e);
  if (!e.fit) return "no fit";
  std::string s = exponent_with_ci(e.fit->exponent, e.fit->ci95_low, e.fit->ci95_high, 2) + ' ';
  s += to_string(e.fit->regime);
  if (!reference && e.exponent_diff) s += strprintf(" (%+.2f)", *e.exponent_diff);
  return s;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string csv_number(const std::optional<double>& v) {
  return v ? strprintf("%.9g", *v) : std::string();
}

// Lengths are whole tokens: 64, not 64.0.
Json json_length(double length) {
  return length == std::floor(length) ? Json(std::int64_t(length)) : Json(length);
}

}  // namespace

std::string format_compare_markdown(const Comparison& c) {
  std::ostringstream os;
  os << "| backend/path | measure |";
  for (const ComparedReport& r : c.reports) os << ' ' << markdown_cell(r.name()) << " |";
  os << "\n|---|---|";
  for (std::size_t i = 0; i < c.reports.size(); ++i) os << "---|";
  os << '\n';
  for (const CompareRow& row : c.rows) {
    os << "| " << markdown_cell(row.label()) << " | " << strprintf("ns/token at L=%.0f", row.length)
       << " |";
    for (std::size_t i = 0; i < row.entries.size(); ++i)
      os << ' ' << markdown_cell(cost_cell(row.entries[i], i == 0)) << " |";
    os << "\n| " << markdown_cell(row.label()) << " | exponent p [95% CI] regime |";
    for (std::size_t i = 0; i < row.entries.size(); ++i)
      os << ' ' << markdown_cell(exponent_cell(row.entries[i], i == 0)) << " |";
    os << '\n';
  }

  std::string statistics = c.reports[0].statistic;
  for (const ComparedReport& r : c.reports)
    if (r.statistic != c.reports[0].statistic) {
      statistics.clear();
      for (const ComparedReport& s : c.reports)
        statistics += (statistics.empty() ? "" : ", ") + s.source + ": " + s.statistic;
      break;
    }
  os << "\nns/token: the report's time (" << markdown_cell(statistics)
     << ") at L over L, where L is the longest length every report timed. (×) is the cost "
        "ratio and (±) the exponent difference to "
     << markdown_cell(c.reports[0].name()) << ".\n";
  return os.str();
}

std::string format_compare_csv(const Comparison& c) {
  std::ostringstream os;
  os << "backend,path,report,machine,statistic,length,status,reason,seconds,per_token_s,"
        "cost_ratio,exponent,ci95_low,ci95_high,regime,exponent_diff\n";
  for (const CompareRow& row : c.rows)
    for (std::size_t i = 0; i < row.entries.size(); ++i) {
      const CompareEntry& e = row.entries[i];
      const ComparedReport& r = c.reports[i];
      os << csv_cell(row.backend) << ',' << csv_cell(row.path) << ',' << csv_cell(r.source) << ','
         << csv_cell(r.machine) << ',' << r.statistic << ',' << strprintf("%.9g", row.length) << ','
         << csv_cell(e.status) << ',' << csv_cell(e.reason) << ',' << csv_number(e.seconds) << ','
         << csv_number(e.per_token_s) << ',' << csv_number(e.cost_ratio) << ','
         << (e.fit ? strprintf("%.9g", e.fit->exponent) : "") << ','
         << csv_number(e.fit ? e.fit->ci95_low : std::nullopt) << ','
         << csv_number(e.fit ? e.fit->ci95_high : std::nullopt) << ','
         << (e.fit ? to_string(e.fit->regime) : "") << ',' << csv_number(e.exponent_diff) << '\n';
    }
  return os.str();
}

Json compare_to_json(const Comparison& c) {
  Json out;
  out["reports"] = Json::array();
  for (const ComparedReport& r : c.reports)
    out["reports"].push_back({{"source", r.source},
                              {"machine", r.machine},
                              {"git_commit", r.git_commit},
                              {"statistic", r.statistic}});
  out["rows"] = Json::array();
  for (const CompareRow& row : c.rows) {
    Json entries = Json::array();
    for (std::size_t i = 0; i < row.entries.size(); ++i) {
      const CompareEntry& e = row.entries[i];
      const std::optional<ReportFit>& f = e.fit;
      entries.push_back(
          {{"source", c.reports[i].source},
           {"status", e.status},
           {"reason", e.reason},
           {"seconds", number_or_null(e.seconds)},
           {"per_token_s", number_or_null(e.per_token_s)},
           {"cost_ratio", number_or_null(e.cost_ratio)},
           {"exponent", f ? Json(f->exponent) : Json(nullptr)},
           {"ci95", f && f->ci95_low ? Json{*f->ci95_low, *f->ci95_high} : Json(nullptr)},
           {"regime", f ? Json(std::string(to_string(f->regime))) : Json(nullptr)},
           {"exponent_diff", number_or_null(e.exponent_diff)}});
    }
    out["rows"].push_back({{"backend", row.backend},
                           {"path", row.path},
                           {"length", json_length(row.length)},
                           {"entries", std::move(entries)}});
  }
  return out;
}

}  // namespace readbench
