#include "measure/results.hpp"

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"

namespace readbench {

bool RunResult::all_checks_passed() const {
  return std::all_of(results.begin(), results.end(), [](const PathResult& r) {
    return std::all_of(r.checks.begin(), r.checks.end(),
                       [](const CheckResult& c) { return c.passed; });
  });
}

double speedup_of(double gather_s, double fused_s) {
  if (!(gather_s > 0) || !(fused_s > 0)) {
    std::ostringstream os;
    os << "speedup needs positive times, got gather " << gather_s << " s and fused " << fused_s
       << " s";
    throw InputError(os.str());
  }
  return gather_s / fused_s;
}

}  // namespace readbench
