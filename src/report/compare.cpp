#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "report/csv.hpp"
#include "report/fit_json.hpp"
#include "report/format.hpp"
#include "report/setup_match.hpp"

namespace readbench {

namespace {

bool timed(const ReportResult* r) {
  return r && r->timed();
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

CompareEntry entry_for(const ReportResult* r, std::optional<double> length, bool min) {
  CompareEntry e;
  if (!r) {
    e.status = "missing";
    return e;
  }
  e.reason = r->reason;
  e.status = r->status != Status::ok ? std::string(to_string(r->status))
             : r->points.empty()     ? "not timed"
                                     : "ok";
  if (e.status != "ok") return e;
  e.fit = r->fit;
  if (!length) return e;  // ok, with an exponent, but no length in common for a cost
  const ReportPoint* p = point_at(*r, *length);
  e.seconds = min ? p->min_s : p->median_s;
  e.per_token_s = *e.seconds / *length;
  return e;
}

using Key = std::pair<std::string, std::string>;  // backend, path

}  // namespace

Comparison compare_reports(const std::vector<Report>& reports) {
  if (reports.size() < 2)
    throw InputError("compare needs at least two reports, got " + std::to_string(reports.size()));
  Comparison c;
  for (const Report& r : reports) c.reports.push_back(r.origin());
  for (const Report& r : reports)
    if (!r.complete)
      c.notes.push_back(r.origin().name() + " is " + r.incompleteness() +
                        ": its grid ended early, so its lengths and fits may fall short of the "
                        "others'");
  // One statistic for every column: the reports' own where they agree, else the min, which
  // every report carries (a min over a median would be no ratio at all).
  c.statistic = reports[0].statistic;
  for (const Report& r : reports)
    if (r.statistic != c.statistic) c.statistic = Statistic::min;

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
    CompareRow row{backend, path, common_longest(have), {}};
    for (std::size_t i = 0; i < found.size(); ++i) {
      row.entries.push_back(entry_for(found[i], row.length, c.statistic == Statistic::min));
      // Marginal costs compare on one statistic too: a report fitted on medians among reports
      // on mins has t0 + b*L computed again from its min times, over its own fitted lengths.
      CompareEntry& e = row.entries.back();
      if (e.fit && reports[i].statistic != c.statistic) {
        std::vector<TimedPoint> mins;
        for (const ReportPoint& p : found[i]->points) mins.push_back({p.length, p.min_s});
        ReadFitOptions options;
        options.fit_from = e.fit->fit_from;
        options.kv_bytes_per_token = e.fit->kv_bytes_per_token;
        try {
          e.fit->affine = fit_read(mins, options).affine;
        } catch (const FitError&) {
          e.fit.reset();  // the same lengths fit on medians: not reached in practice
        }
      }
    }
    const CompareEntry first = row.entries[0];
    const auto marginal = [](const CompareEntry& e) {
      return e.fit && e.fit->affine.marginal_s > 0 ? std::optional(e.fit->affine.marginal_s)
                                                   : std::nullopt;
    };
    for (CompareEntry& e : row.entries) {
      if (e.per_token_s && first.per_token_s && *first.per_token_s > 0)
        e.cost_ratio = *e.per_token_s / *first.per_token_s;
      if (marginal(e) && marginal(first)) e.marginal_ratio = *marginal(e) / *marginal(first);
      if (e.fit && first.fit) e.exponent_diff = e.fit->power.exponent - first.fit->power.exponent;
      if (marginal(e)) {
        e.rank = 1;
        for (const CompareEntry& other : row.entries)
          if (marginal(other) && *marginal(other) < *marginal(e)) ++*e.rank;
      }
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
  if (!e.per_token_s) return e.status == "ok" ? "-" : no_numbers(e);  // "-": no common length
  std::string s = sig3(*e.per_token_s * 1e9);
  if (!reference && e.cost_ratio) s += " (×" + sig3(*e.cost_ratio) + ")";
  return s;
}

std::string exponent_cell(const CompareEntry& e, bool reference) {
  if (e.status != "ok") return no_numbers(e);
  if (!e.fit) return "no fit";
  const FitResult& f = e.fit->power;
  std::string s = exponent_with_ci(f.exponent, f.ci95_low, f.ci95_high, 2) + ' ';
  s += to_string(f.regime);
  if (!reference && e.exponent_diff) s += strprintf(" (%+.2f)", *e.exponent_diff);
  if (!e.fit->asymptote_reached) s += " (asymptote not reached)";
  return s;
}

std::string marginal_cell(const CompareEntry& e, bool reference) {
  if (e.status != "ok") return no_numbers(e);
  if (!e.fit) return "no fit";
  if (!(e.fit->affine.marginal_s > 0))
    return "not positive (" + sig3(e.fit->affine.marginal_s * 1e9) + ")";
  std::string s = sig3(e.fit->affine.marginal_s * 1e9);
  if (!reference && e.marginal_ratio) s += " (×" + sig3(*e.marginal_ratio) + ")";
  if (e.rank) s += strprintf(" #%d", *e.rank);
  return s;
}

std::string fixed_cell(const CompareEntry& e) {
  if (e.status != "ok") return no_numbers(e);
  if (!e.fit) return "no fit";
  return format_fixed_cost(e.fit->affine, true);
}

// A column head: the report, its host, threads and CPU (setup_match.hpp), and its index where
// two heads would otherwise read alike.
std::vector<std::string> column_heads(const std::vector<ReportOrigin>& reports) {
  std::vector<std::string> heads;
  for (const ReportOrigin& r : reports)
    heads.push_back(r.source + " (" + host_setup_words(r) + ")" +
                    (r.quality == QualityVerdict::contended ? " (contended)" : ""));
  for (std::size_t i = 0; i < heads.size(); ++i)
    if (std::count(heads.begin(), heads.end(), heads[i]) > 1) {
      const std::string same = heads[i];
      for (std::size_t k = 0, n = 1; k < heads.size(); ++k)
        if (heads[k] == same) heads[k] = "#" + std::to_string(n++) + " " + same;
    }
  return heads;
}

// What differs between the first report's set-up and each other's: the workload's own
// differences are refused at read; these are the host's.
std::vector<std::string> setup_notes(const std::vector<ReportOrigin>& reports) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < reports.size(); ++i) {
    std::string d;
    for (const std::string& x : host_setup_differences(reports[0], reports[i]))
      d += (d.empty() ? "" : "; ") + x;
    if (reports[i].statistic != reports[0].statistic)
      d += std::string(d.empty() ? "" : "; ") + "statistic: baseline " +
           std::string(to_string(reports[0].statistic)) + ", current " +
           std::string(to_string(reports[i].statistic));
    if (!d.empty())
      out.push_back("the set-ups differ, " + reports[0].source + " (baseline) against " +
                    reports[i].source + " (current): " + d +
                    "; the numbers compare machines and set-ups together");
  }
  return out;
}

// Lengths are whole tokens: 64, not 64.0.
Json json_length(double length) {
  return length == std::floor(length) ? Json(std::int64_t(length)) : Json(length);
}

}  // namespace

std::string format_compare_markdown(const Comparison& c) {
  std::ostringstream os;
  os << "| backend/path | measure |";
  for (const std::string& head : column_heads(c.reports)) os << ' ' << markdown_cell(head) << " |";
  os << "\n|---|---|";
  for (std::size_t i = 0; i < c.reports.size(); ++i) os << "---|";
  os << '\n';
  for (const CompareRow& row : c.rows) {
    os << "| " << markdown_cell(row.label()) << " | marginal ns/token (rank) |";
    for (std::size_t i = 0; i < row.entries.size(); ++i)
      os << ' ' << markdown_cell(marginal_cell(row.entries[i], i == 0)) << " |";
    os << "\n| " << markdown_cell(row.label()) << " | fixed cost per call |";
    for (const CompareEntry& e : row.entries) os << ' ' << markdown_cell(fixed_cell(e)) << " |";
    os << "\n| " << markdown_cell(row.label()) << " | "
       << (row.length ? strprintf("ns/token at L=%.0f", *row.length)
                      : std::string("ns/token (no length timed in common)"))
       << " |";
    for (std::size_t i = 0; i < row.entries.size(); ++i)
      os << ' ' << markdown_cell(cost_cell(row.entries[i], i == 0)) << " |";
    os << "\n| " << markdown_cell(row.label()) << " | exponent p [95% CI] regime |";
    for (std::size_t i = 0; i < row.entries.size(); ++i)
      os << ' ' << markdown_cell(exponent_cell(row.entries[i], i == 0)) << " |";
    os << '\n';
  }

  std::string mixed;
  for (const ReportOrigin& r : c.reports)
    if (r.statistic != c.statistic)
      mixed += (mixed.empty() ? "" : ", ") + r.source + ": " + std::string(to_string(r.statistic));
  os << "\nMarginal ns/token: b of t = t0 + b*L over each report's fitted lengths, the "
        "figure to compare machines by (#1 the lowest); fixed cost: t0 where its 95% CI lies "
        "above zero, else ≈ 0 with the CI (not resolved, never ranked). ";
  os << "ns/token at L: the " << to_string(c.statistic)
     << " time per call at L over L, where L is the longest "
     << "length every report timed";
  if (!mixed.empty())
    os << " (the reports' fits use different statistics (" << markdown_cell(mixed)
       << "), so costs, marginal and fixed costs compare mins; each exponent is its report's "
          "own)";
  os << ". (×) is the cost ratio and (±) the exponent difference to "
     << markdown_cell(c.reports[0].name()) << ".\n";
  for (const ReportOrigin& r : c.reports)
    if (!r.cpu.empty())
      os << "\nCPU of " << markdown_cell(r.name()) << ": " << markdown_cell(r.cpu) << ".\n";
  for (const ReportOrigin& r : c.reports)
    if (r.quality == QualityVerdict::contended)
      os << "\n"
         << markdown_cell(r.name())
         << " is marked contended: the machine's other work is in its numbers (its report says "
            "why).\n";
  for (const std::string& n : setup_notes(c.reports)) os << "\nNote: " << markdown_cell(n) << ".\n";
  for (const std::string& n : c.notes) os << "\nNote: " << markdown_cell(n) << ".\n";
  return os.str();
}

std::string format_compare_csv(const Comparison& c) {
  std::ostringstream os;
  os << "backend,path,report,machine,statistic,length,status,reason,seconds,per_token_s,"
        "cost_ratio,exponent,ci95_low,ci95_high,regime,exponent_diff,marginal_s,marginal_ratio,"
        "rank,fixed_s,asymptote_reached\n";
  for (const CompareRow& row : c.rows)
    for (std::size_t i = 0; i < row.entries.size(); ++i) {
      const CompareEntry& e = row.entries[i];
      const ReportOrigin& r = c.reports[i];
      os << csv_cell(row.backend) << ',' << csv_cell(row.path) << ',' << csv_cell(r.source) << ','
         << csv_cell(r.machine) << ',' << to_string(c.statistic) << ',' << csv_number(row.length)
         << ',' << csv_cell(e.status) << ',' << csv_cell(e.reason) << ',' << csv_number(e.seconds)
         << ',' << csv_number(e.per_token_s) << ',' << csv_number(e.cost_ratio) << ','
         << (e.fit ? strprintf("%.9g", e.fit->power.exponent) : "") << ','
         << csv_number(e.fit ? e.fit->power.ci95_low : std::nullopt) << ','
         << csv_number(e.fit ? e.fit->power.ci95_high : std::nullopt) << ','
         << (e.fit ? to_string(e.fit->power.regime) : "") << ',' << csv_number(e.exponent_diff)
         << ',' << csv_number(e.fit ? std::optional(e.fit->affine.marginal_s) : std::nullopt) << ','
         << csv_number(e.marginal_ratio) << ',' << (e.rank ? std::to_string(*e.rank) : "") << ','
         << csv_number(e.fit ? std::optional(e.fit->affine.fixed_s) : std::nullopt) << ','
         << (e.fit ? (e.fit->asymptote_reached ? "true" : "false") : "") << '\n';
    }
  return os.str();
}

Json compare_to_json(const Comparison& c) {
  Json out;
  out["reports"] = Json::array();
  for (const ReportOrigin& r : c.reports) out["reports"].push_back(origin_to_json(r));
  out["statistic"] = to_string(c.statistic);
  out["notes"] = c.notes;
  out["rows"] = Json::array();
  for (const CompareRow& row : c.rows) {
    Json entries = Json::array();
    for (std::size_t i = 0; i < row.entries.size(); ++i) {
      const CompareEntry& e = row.entries[i];
      entries.push_back({{"source", c.reports[i].source},
                         {"status", e.status},
                         {"reason", e.reason},
                         {"seconds", number_or_null(e.seconds)},
                         {"per_token_s", number_or_null(e.per_token_s)},
                         {"cost_ratio", number_or_null(e.cost_ratio)},
                         {"marginal_ratio", number_or_null(e.marginal_ratio)},
                         {"rank", e.rank ? Json(*e.rank) : Json(nullptr)},
                         {"exponent_diff", number_or_null(e.exponent_diff)},
                         {"fit", e.fit ? fit_to_json(*e.fit) : Json(nullptr)}});
    }
    out["rows"].push_back({{"backend", row.backend},
                           {"path", row.path},
                           {"length", row.length ? json_length(*row.length) : Json(nullptr)},
                           {"entries", std::move(entries)}});
  }
  return out;
}

}  // namespace readbench
