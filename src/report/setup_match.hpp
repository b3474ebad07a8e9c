#pragma once
// The host set-up two reports' CPU rows must share for their numbers to compare: the threads
// the CPU backend ran, the CPU model and its core count. A 1-thread report against a 2-thread
// baseline compares two different reads.
#include <string>
#include <vector>

#include "report/report_input.hpp"

namespace readbench {

// "threads: baseline 2, current 1", one line per difference; nothing where either report does
// not say (a report written before it was recorded).
std::vector<std::string> host_setup_differences(const ReportOrigin& baseline,
                                                const ReportOrigin& current);

// "vm, 2 threads, Intel(R) Xeon(R) Platinum 8488C x2": the host as a column head names it.
std::string host_setup_words(const ReportOrigin& r);

}  // namespace readbench
