#include "cli/read_report.hpp"

#include <algorithm>

#include "cli/read_input.hpp"
#include "core/errors.hpp"

namespace readbench::cli {

Report read_report(const std::string& path) {
  return parse_report(read_input(path), path == "-" ? "stdin" : path);
}

std::vector<Report> read_reports(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw InputError("stdin ('-') is named more than once: it can be read only once");
  std::vector<Report> reports;
  for (const std::string& path : paths) reports.push_back(read_report(path));
  return reports;
}

}  // namespace readbench::cli
