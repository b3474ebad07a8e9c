#include "measure/verify.hpp"

#include <algorithm>
#include <limits>

#include "core/interrupt.hpp"
#include "core/reference.hpp"

namespace readbench {

CheckResult check_of(const Workload& w, const Path& p) {
  CheckResult r;
  r.path = p;
  r.length = w.length;
  r.batch = w.shape.batch;
  r.dtype = w.dtype;
  r.kv_dtype = w.kv_dtype();
  r.tolerance = tolerance(w.dtype, w.length);
  return r;
}

CheckResult failed_check(const Workload& w, const Path& p, const std::string& failure) {
  CheckResult r = check_of(w, p);
  r.error = std::numeric_limits<double>::infinity();
  r.failure = failure;
  return r;
}

std::vector<CheckResult> check_paths(Backend& backend, const Workload& w,
                                     const std::vector<Path>& paths) {
  backend.release();  // built in the place of the backend's last workload
  HostWorkload h = make_host_workload(w);
  throw_if_interrupted();
  const std::vector<double> ref = reference_attention(h, 0);
  throw_if_interrupted();
  backend.prepare(std::move(h));
  std::vector<CheckResult> out;
  for (const Path& p : paths) {
    throw_if_interrupted();
    CheckResult r = check_of(w, p);
    try {
      std::vector<double> got = backend.run_for_check(p);
      throw_if_interrupted();  // a signal may have cut the call short: its output is no answer
      r.error = relative_error(got, ref);
      r.passed = r.error <= r.tolerance;  // NaN/inf give +inf: never passes
    } catch (const PluginFailure& e) {    // the plugin's own error: its path fails, no other
      r = failed_check(w, p, e.what());
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::int64_t> verification_lengths(const SweepConfig& c) {
  const Shape& s = c.shape;
  // About 2^27 multiply-adds per reference pass: well under a second on two cores.
  const std::int64_t per_token = std::int64_t(s.batch) * s.q_heads * s.head_dim;
  const std::int64_t affordable = std::max<std::int64_t>(s.block_size + 1, (1ll << 27) / per_token);
  // An auto grid may reach --max-length: verify as far as the reference affords.
  const std::int64_t shortest = c.auto_lengths ? kAutoFirstLength : c.lengths.front();
  const std::int64_t longest = c.auto_lengths ? c.max_length : c.lengths.back();
  std::vector<std::int64_t> v{shortest, s.block_size + 1,
                              longest <= affordable ? longest : (affordable | 1)};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace readbench
