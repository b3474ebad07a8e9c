#include "report/csv.hpp"

#include <cstdio>

#include "core/errors.hpp"

namespace readbench {

namespace {

std::string_view trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

std::string csv_cell(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };  // split_csv_line trims them
  const bool edge_space = !s.empty() && (blank(s.front()) || blank(s.back()));
  if (!edge_space && s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string csv_number(std::optional<double> v) {
  if (!v) return {};
  char buf[32];  // %.9g of any double: at most 16 characters
  std::snprintf(buf, sizeof buf, "%.9g", *v);
  return buf;
}

std::vector<std::string> split_csv_line(std::string_view line, const std::string& where) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (true) {
    // Spaces before a quote are not part of a quoted cell.
    std::size_t start = i;
    while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
    if (start < line.size() && line[start] == '"') {
      std::string cell;
      std::size_t j = start + 1;
      for (;; ++j) {
        if (j >= line.size()) throw InputError(where + ": a quoted cell is never closed");
        if (line[j] != '"') {
          cell += line[j];
        } else if (j + 1 < line.size() && line[j + 1] == '"') {
          cell += '"';
          ++j;
        } else {
          break;
        }
      }
      const std::size_t comma = line.find(',', j + 1);
      const std::string_view rest =
          trim(line.substr(j + 1, comma == std::string_view::npos ? line.npos : comma - j - 1));
      if (!rest.empty())
        throw InputError(where + ": text after a quoted cell's closing quote: '" +
                         std::string(rest) + "'");
      cells.push_back(std::move(cell));
      if (comma == std::string_view::npos) return cells;
      i = comma + 1;
    } else {
      const std::size_t comma = line.find(',', i);
      cells.emplace_back(
          trim(line.substr(i, comma == std::string_view::npos ? line.npos : comma - i)));
      if (comma == std::string_view::npos) return cells;
      i = comma + 1;
    }
  }
}

}  // namespace readbench
