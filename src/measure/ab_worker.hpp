#pragma once
// The worker side of `readbench ab` (ab_protocol.hpp): one arm's backend, plugins and workloads
// in a process of their own, timed only when the parent asks. Each length keeps its own
// prepared backend, so the parent can visit the lengths in any order without building a
// workload twice.
#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "measure/results.hpp"

namespace readbench {

// The setup request's config, and back: what a worker needs of the shared workload and of its
// arm (backend, paths, plugins). Throws InputError naming a bad field.
nlohmann::json worker_config_to_json(const SweepConfig& c, double plugin_timeout_s,
                                     const std::vector<std::string>& plugin_files);
struct WorkerConfig {
  SweepConfig sweep;
  std::string backend;  // "cpu" or "cuda"
  double plugin_timeout_s = 0;
  std::vector<std::string> plugin_files;
};
WorkerConfig worker_config_from_json(const nlohmann::json& j);

// The backend facts a setup reply carries, and back.
nlohmann::json backend_to_json(const BackendResult& b);
BackendResult backend_from_json(const nlohmann::json& j);
nlohmann::json check_result_to_json(const CheckResult& c);
CheckResult check_result_from_json(const nlohmann::json& j);

// Serves requests from `in_fd` and answers on `out_fd` until quit or the end of input. Returns
// the process exit status.
int serve_ab_worker(int in_fd, int out_fd);

}  // namespace readbench
