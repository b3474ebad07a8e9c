#include "measure/results.hpp"

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"

namespace readbench {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::unavailable:
      return "unavailable";
    case Status::failed:
      return "failed";
  }
  return "?";
}

std::string_view to_string(GridStop s) {
  switch (s) {
    case GridStop::explicit_lengths:
      return "explicit";
    case GridStop::reached:
      return "reached";
    case GridStop::max_length:
      return "max_length";
    case GridStop::sweep_budget:
      return "sweep_budget";
    case GridStop::memory:
      return "memory";
    case GridStop::not_timed:
      return "not_timed";
    case GridStop::interrupted:
      return "interrupted";
  }
  return "?";
}

BackendChoice parse_backend_choice(std::string_view s) {
  if (s == "cpu") return BackendChoice::cpu;
  if (s == "cuda") return BackendChoice::cuda;
  if (s == "all") return BackendChoice::all;
  if (s == "auto") return BackendChoice::auto_;
  throw InputError("unknown backend '" + std::string(s) + "' (expected cpu, cuda, all or auto)");
}

std::string_view to_string(BackendChoice b) {
  switch (b) {
    case BackendChoice::cpu:
      return "cpu";
    case BackendChoice::cuda:
      return "cuda";
    case BackendChoice::all:
      return "all";
    case BackendChoice::auto_:
      return "auto";
  }
  return "?";
}

Statistic parse_statistic(std::string_view s) {
  if (s == "min") return Statistic::min;
  if (s == "median") return Statistic::median;
  throw InputError("unknown statistic '" + std::string(s) + "' (expected min or median)");
}

std::string_view to_string(Statistic s) {
  return s == Statistic::min ? "min" : "median";
}

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
