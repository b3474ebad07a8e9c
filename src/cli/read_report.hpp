#pragma once
// The reading of readbench reports from files or stdin, for the commands that consume them.
#include <string>
#include <vector>

#include <optional>

#include "report/ab_report.hpp"
#include "report/report_input.hpp"

namespace readbench::cli {

// A readbench run report from FILE or stdin ("-"), its errors naming the file (or "stdin"). An ab
// report is refused, saying which commands read one.
Report read_report(const std::string& path);
// A run report or an ab report (report/ab_report.hpp), whichever FILE holds.
struct AnyReport {
  std::optional<Report> run;
  std::optional<AbReport> ab;
};
AnyReport read_any_report(const std::string& path);
// Several; stdin may be named once only (a second read would find it empty). An ab report gives
// its two arms, base then head.
std::vector<Report> read_reports(const std::vector<std::string>& paths);

}  // namespace readbench::cli
