#include "report/setup_match.hpp"

namespace readbench {

std::vector<std::string> host_setup_differences(const ReportOrigin& baseline,
                                                const ReportOrigin& current) {
  std::vector<std::string> out;
  if (baseline.threads > 0 && current.threads > 0 && baseline.threads != current.threads)
    out.push_back("threads: baseline " + std::to_string(baseline.threads) + ", current " +
                  std::to_string(current.threads));
  if (!baseline.cpu_model.empty() && !current.cpu_model.empty() &&
      baseline.cpu_model != current.cpu_model)
    out.push_back("CPU model: baseline " + baseline.cpu_model + ", current " + current.cpu_model);
  if (baseline.cpu_cores > 0 && current.cpu_cores > 0 && baseline.cpu_cores != current.cpu_cores)
    out.push_back("CPU cores: baseline " + std::to_string(baseline.cpu_cores) + ", current " +
                  std::to_string(current.cpu_cores));
  return out;
}

std::string host_setup_words(const ReportOrigin& r) {
  std::string out = r.machine;
  if (r.threads > 0)
    out += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  if (!r.cpu_model.empty()) out += ", " + r.cpu_model;
  if (r.cpu_cores > 0) out += " x" + std::to_string(r.cpu_cores);
  return out;
}

}  // namespace readbench
