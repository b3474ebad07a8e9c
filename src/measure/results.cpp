#include "measure/results.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/fit.hpp"

namespace readbench {

namespace {
constexpr Named<BackendChoice> kBackendChoiceNames[] = {{BackendChoice::cpu, "cpu"},
                                                        {BackendChoice::cuda, "cuda"},
                                                        {BackendChoice::all, "all"},
                                                        {BackendChoice::auto_, "auto"}};
}  // namespace

BackendChoice parse_backend_choice(std::string_view s) {
  if (const auto b = find_named(kBackendChoiceNames, s)) return *b;
  throw InputError("unknown backend '" + std::string(s) + "' (expected " +
                   names_of(kBackendChoiceNames) + ")");
}

std::string_view to_string(BackendChoice b) {
  return name_in(kBackendChoiceNames, b);
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
