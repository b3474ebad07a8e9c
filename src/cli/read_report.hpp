#pragma once
// The reading of readbench reports from files or stdin, for the commands that consume them.
#include <string>
#include <vector>

#include "report/report_input.hpp"

namespace readbench::cli {

// A readbench report from FILE or stdin ("-"), its errors naming the file (or "stdin").
Report read_report(const std::string& path);
// Several; stdin may be named once only (a second read would find it empty).
std::vector<Report> read_reports(const std::vector<std::string>& paths);

}  // namespace readbench::cli
