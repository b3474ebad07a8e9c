#include "measure/results.hpp"

#include <algorithm>

#include "backends/registry.hpp"
#include "core/errors.hpp"
#include "core/power_law_fit.hpp"

namespace readbench {

int SweepConfig::rounds_on(const std::string& backend) const {
  if (rounds) return *rounds;
  const BackendKind* kind = find_backend_kind(backend);
  return kind != nullptr && kind->name == std::string_view("cpu") ? kCpuAutoRounds : 1;
}

bool RunResult::all_checks_passed() const {
  return std::all_of(results.begin(), results.end(), [](const PathResult& r) {
    return std::all_of(r.checks.begin(), r.checks.end(),
                       [](const CheckResult& c) { return c.passed; });
  });
}

double speedup_of(double gather_s, double fused_s) {
  if (!(gather_s > 0) || !(fused_s > 0)) {
    throw InputError("speedup needs positive times, got gather " + format_number(gather_s) +
                     " s and fused " + format_number(fused_s) + " s");
  }
  return gather_s / fused_s;
}

}  // namespace readbench
