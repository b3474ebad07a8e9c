#include "backends/cpu/omp_wait_policy.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace readbench::cpu {

bool user_chose_wait_policy(const char* omp_wait_policy, const char* gomp_spincount) {
  return omp_wait_policy != nullptr || gomp_spincount != nullptr;
}

void apply_default_wait_policy(char** argv) {
  if (user_chose_wait_policy(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"))) return;
  if (setenv(kWaitPolicyVariable, kDefaultWaitPolicy, 1) != 0) return;
  setenv(kDefaultedMarker, "1", 1);
  // The link's target rather than the link, so the process keeps its name (ps, top, pgrep).
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (!ec && !self.empty()) execv(self.c_str(), argv);
  execv("/proc/self/exe", argv);  // the binary was replaced or its path is unreachable
  // exec failed (no /proc): this process keeps libgomp's default, and must not claim ours.
  unsetenv(kWaitPolicyVariable);
  unsetenv(kDefaultedMarker);
}

std::string describe_wait_policy(const char* omp_wait_policy, const char* gomp_spincount,
                                 const char* defaulted_marker) {
  if (!user_chose_wait_policy(omp_wait_policy, gomp_spincount)) return "libgomp default";
  // The marker claims only the default's own value, with the other variable unset.
  if (defaulted_marker != nullptr && omp_wait_policy == nullptr && gomp_spincount != nullptr &&
      std::string(gomp_spincount) == kDefaultWaitPolicy)
    return std::string(kWaitPolicyVariable) + "=" + kDefaultWaitPolicy + " (default)";
  std::string d;
  if (omp_wait_policy != nullptr) d = std::string(omp_wait_policy) + " (OMP_WAIT_POLICY)";
  if (gomp_spincount != nullptr)
    d += (d.empty() ? "" : ", ") + std::string("GOMP_SPINCOUNT=") + gomp_spincount;
  return d;
}

std::string wait_policy_in_effect() {
  return describe_wait_policy(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"),
                              std::getenv(kDefaultedMarker));
}

}  // namespace readbench::cpu
