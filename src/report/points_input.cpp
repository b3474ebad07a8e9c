#include "report/points_input.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/printable.hpp"
#include "report/csv.hpp"
#include "report/json_input.hpp"
#include "report/report_input.hpp"

namespace readbench {

namespace {

using nlohmann::json;

std::string trim_line(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// A decimal number as the CSV writers print it (from_chars: no hex, no locale), spaces around it
// and a leading '+' aside. "nan", "inf" and values past a double's range get through as strtod
// reads them (nan, inf, 0) to the fit's guards, which name them.
double parse_number(const std::string& cell, const std::string& where, const char* column) {
  std::string text = trim_line(cell);
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.erase(0, 1);
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, v);
  if (error == std::errc::result_out_of_range && stop == end)
    return std::strtod(text.c_str(), nullptr);
  if (text.empty() || error != std::errc() || stop != end)
    throw InputError(where + ": " + column + " '" + cell + "' is not a number");
  return v;
}

int column(const std::vector<std::string>& header, const char* name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : int(it - header.begin());
}

// `length,seconds` points; with `backend` and `path` columns too (the CSV `readbench run`
// writes), one series per backend/path in the order they first appear.
std::vector<PointSeries> parse_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    if (!trim_line(line).empty())
      header = split_csv_line(line, "CSV line " + std::to_string(line_no));
  }
  const int li = column(header, "length"), si = column(header, "seconds");
  if (li < 0 || si < 0)
    throw InputError("CSV line " + std::to_string(line_no) +
                     ": the header must name the columns 'length' and 'seconds'");
  // A column read twice would leave which one counts to chance.
  for (const char* name : {"length", "seconds", "backend", "path"})
    if (std::count(header.begin(), header.end(), name) > 1)
      throw InputError("CSV line " + std::to_string(line_no) + ": the header names '" + name +
                       "' twice");
  const int bi = column(header, "backend"), pi = column(header, "path");
  const bool grouped = bi >= 0 && pi >= 0;
  const int needed = std::max({li, si, grouped ? std::max(bi, pi) : 0});
  std::vector<PointSeries> series;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim_line(line).empty()) continue;
    const std::string where = "CSV line " + std::to_string(line_no);
    const auto cells = split_csv_line(line, where);
    // Narrower than the header is fine while the columns read are there (trailing empty
    // columns left off); wider only by empty cells (a trailing comma).
    const bool extra =
        std::any_of(cells.begin() + std::ptrdiff_t(std::min(cells.size(), header.size())),
                    cells.end(), [](const std::string& x) { return !trim_line(x).empty(); });
    if (int(cells.size()) <= needed || extra)
      throw InputError(where + ": expected " + std::to_string(header.size()) + " columns, got " +
                       std::to_string(cells.size()));
    // Printed as a heading of `fit`'s table: kept to one line of a terminal.
    const std::string label =
        grouped ? printable(cells[std::size_t(bi)] + "/" + cells[std::size_t(pi)]) : "";
    if (grouped && (cells[std::size_t(bi)].empty() || cells[std::size_t(pi)].empty()))
      throw InputError(where + ": an empty backend or path");
    auto it = std::find_if(series.begin(), series.end(),
                           [&](const PointSeries& x) { return x.label == label; });
    if (it == series.end()) {
      series.push_back({label, {}, std::nullopt, std::nullopt});
      it = series.end() - 1;
    }
    it->points.push_back({parse_number(cells[std::size_t(li)], where, "length"),
                          parse_number(cells[std::size_t(si)], where, "seconds")});
  }
  if (series.empty()) series.emplace_back();  // no rows: the fit's guards say so
  return series;
}

double json_number(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) throw InputError(where + ": missing '" + key + "'");
  const json& v = obj.at(key);
  if (!v.is_number()) throw InputError(where + ": '" + key + "' is not a number");
  return v.get<double>();
}

PointSeries parse_array(const json& arr, const std::string& where) {
  PointSeries s;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!arr[i].is_object()) throw InputError(at + " is not an object");
    s.points.push_back({json_number(arr[i], "length", at), json_number(arr[i], "seconds", at)});
  }
  return s;
}

std::vector<PointSeries> report_series(const json& j, const std::string& source) {
  std::vector<PointSeries> out;
  for (const ReportResult& r : report_from_json(j, source).results) {
    if (r.points.empty()) continue;  // an unavailable or failed backend: nothing to fit
    PointSeries s;
    s.label = r.label();
    s.points = r.timed_points();
    if (r.fit) {
      s.kv_bytes_per_token = r.fit->kv_bytes_per_token;
      if (r.fit->effective_gbps && r.fit->ceiling_fraction)
        s.read_ceiling_gbps = *r.fit->effective_gbps / *r.fit->ceiling_fraction;
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) throw InputError(source + ": the report has no timed points to fit");
  return out;
}

}  // namespace

std::vector<PointSeries> parse_points(const std::string& input, const std::string& source) {
  // Spreadsheets save "CSV UTF-8" with a byte-order mark, which would hide the header.
  const std::string text = input.rfind("\xEF\xBB\xBF", 0) == 0 ? input.substr(3) : input;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(source + " is empty");
  // Every error names the source; a report's and malformed JSON's already do.
  const auto named = [&](const auto& parse) {
    try {
      return parse();
    } catch (const InputError& e) {
      throw InputError(source + ": " + e.what());
    }
  };
  if (text[first] != '[' && text[first] != '{') {
    // JSON that is neither an array nor an object (null, 42, "x") is no CSV either.
    if (const json scalar = json::parse(text, nullptr, false); !scalar.is_discarded())
      throw InputError(source + ": a JSON " + scalar.type_name() +
                       " is neither an array of points nor a readbench report");
    return named([&] { return parse_csv(text); });
  }
  const json j = parse_json_input(text, source);
  if (j.is_array())
    return named([&] { return std::vector<PointSeries>{parse_array(j, "element")}; });
  return report_series(j, source);
}

}  // namespace readbench
