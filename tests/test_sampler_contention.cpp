// The sampler against a fake backend whose samples are scripted clean or disturbed: disturbed
// samples are re-taken and counted, never summarised beside clean ones, and a point that never
// got enough clean samples within its budget keeps the disturbed ones and says it was
// contended. Assertions are on counts and flags, never on how long anything took.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "measure/sampler.hpp"

using namespace readbench;

namespace {

struct Scripted {
  double seconds;
  bool disturbed;
};

// Warm-up calls (hot, single) take 1 ms and are clean; sample i takes script[i % size].
class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(std::vector<Scripted> script) : script_(std::move(script)) {}

  std::string_view name() const override { return "scripted"; }
  double timer_resolution_s() const override { return 1e-9; }  // 1 ms calls are not batched
  std::int64_t cache_bytes() const override { return 1 << 20; }
  Bandwidths measure_bandwidths() override { return {}; }
  void prepare(HostWorkload&&) override {}
  std::vector<double> run_for_check(Path) override { return {}; }

  double time_calls(Path, int calls, CacheState cache) override {
    if (cache == CacheState::hot) {
      disturbed_ = false;
      return 1e-3 * calls;
    }
    const Scripted s = script_[samples_++ % script_.size()];
    disturbed_ = s.disturbed;
    return s.seconds * calls;
  }
  bool last_sample_disturbed() const override { return disturbed_; }

  int samples_taken() const { return samples_; }

 private:
  std::vector<Scripted> script_;
  int samples_ = 0;
  bool disturbed_ = false;
};

SamplingPolicy quick_policy() {
  SamplingPolicy p;
  p.warmup_s = 0;
  p.min_time_s = 0;
  p.budget_s = 1000;
  p.cache = CacheState::cold;
  return p;
}

}  // namespace

TEST_CASE("disturbed samples never enter the summary when clean ones are available") {
  // Every third sample is disturbed and 50x slower.
  ScriptedBackend fake({{1e-3, false}, {1e-3, false}, {50e-3, true}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 10;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.converged);
  CHECK(m.per_call.count == 10);
  CHECK(m.per_call.max == 1e-3);
  CHECK_FALSE(m.contended);
}

TEST_CASE("each disturbed sample is re-taken and counted") {
  ScriptedBackend fake({{1e-3, false}, {50e-3, true}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 6;
  const Measurement m = measure_point(fake, Path::gather, p);
  CHECK(m.per_call.count == 6);
  // Clean, disturbed, alternating: the sixth clean sample is the eleventh taken.
  CHECK(m.disturbed == 5);
  CHECK(fake.samples_taken() == 11);
}

TEST_CASE("a quiet backend reports no disturbed samples") {
  ScriptedBackend fake({{2e-3, false}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 5;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.disturbed == 0);
  CHECK_FALSE(m.contended);
  CHECK(m.per_call.count == 5);
}

TEST_CASE("an all-disturbed point is kept and marked contended") {
  ScriptedBackend fake({{3e-3, true}, {4e-3, true}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 5;
  p.max_samples = 40;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.contended);
  CHECK_FALSE(m.converged);
  CHECK(m.disturbed == 40);
  CHECK(m.per_call.count == 40);  // the disturbed samples, so the point is not empty
  CHECK(m.per_call.min == 3e-3);
}

TEST_CASE("the budget bounds a point whose samples are all disturbed") {
  ScriptedBackend fake({{1e-3, true}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 10;
  p.max_samples = std::numeric_limits<int>::max();
  p.budget_s = 0.05;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.contended);
  CHECK(m.disturbed >= 3);
  CHECK(m.disturbed == fake.samples_taken());
  CHECK(m.disturbed < p.max_samples);
}

TEST_CASE("enough clean samples within the budget are not contended however many were not") {
  // One clean sample in five: a budget that stops at the floor of three clean samples or more.
  ScriptedBackend fake({{1e-3, false}, {9e-3, true}, {9e-3, true}, {9e-3, true}, {9e-3, true}});
  SamplingPolicy p = quick_policy();
  p.min_samples = 3;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK_FALSE(m.contended);
  CHECK(m.per_call.count == 3);
  CHECK(m.per_call.max == 1e-3);
  CHECK(m.disturbed == 8);
}

TEST_CASE("a backend that cannot tell is never disturbed") {
  struct Silent final : Backend {
    std::string_view name() const override { return "silent"; }
    double timer_resolution_s() const override { return 1e-9; }
    std::int64_t cache_bytes() const override { return 1; }
    Bandwidths measure_bandwidths() override { return {}; }
    void prepare(HostWorkload&&) override {}
    std::vector<double> run_for_check(Path) override { return {}; }
    double time_calls(Path, int calls, CacheState) override { return 1e-3 * calls; }
  } silent;
  CHECK_FALSE(silent.last_sample_disturbed());
  SamplingPolicy p = quick_policy();
  p.min_samples = 4;
  const Measurement m = measure_point(silent, Path::fused, p);
  CHECK(m.disturbed == 0);
  CHECK_FALSE(m.contended);
}
