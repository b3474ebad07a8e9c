#include "cli/read_report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/read_input.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "report/json_input.hpp"

namespace readbench::cli {

AnyReport read_any_report(const std::string& path) {
  const std::string source = path == "-" ? "stdin" : path;
  const nlohmann::json j = parse_json_input(read_input(path), source);
  AnyReport out;
  if (is_ab_report(j))
    out.ab = ab_report_from_json(j, source);
  else
    out.run = report_from_json(j, source);
  return out;
}

Report read_report(const std::string& path) {
  AnyReport r = read_any_report(path);
  if (r.ab)
    throw InputError(printable(r.ab->source) +
                     " is an ab report (readbench ab): check, plot, export and compare read it");
  return std::move(*r.run);
}

std::vector<Report> read_reports(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw InputError("stdin ('-') is named more than once: it can be read only once");
  std::vector<Report> reports;
  for (const std::string& path : paths) {
    AnyReport r = read_any_report(path);
    if (r.ab) {
      reports.push_back(std::move(r.ab->base));
      reports.push_back(std::move(r.ab->head));
    } else {
      reports.push_back(std::move(*r.run));
    }
  }
  return reports;
}

}  // namespace readbench::cli
