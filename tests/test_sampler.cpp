// The sampler against a fake backend with scripted times: batching, the stopping
// rule and its caps. Assertions are on counts and flags, never on how long anything took.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/errors.hpp"
#include "measure/results.hpp"
#include "measure/sampler.hpp"
#include "measure/sweep.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::make_shape;

namespace {

// Returns scripted per-call times without doing any work, and records what it was asked.
class FakeBackend final : public Backend {
 public:
  FakeBackend(double resolution_s, std::vector<double> per_call_s)
      : resolution_(resolution_s), times_(std::move(per_call_s)) {}

  std::string_view name() const override { return "fake"; }
  double timer_resolution_s() const override { return resolution_; }
  std::int64_t cache_bytes() const override { return 1 << 20; }
  Bandwidths measure_bandwidths() override { return {}; }
  void prepare(HostWorkload&&) override {}
  std::vector<double> run_for_check(Path) override { return {}; }

  // The i-th call of the whole run takes times_[i % size]; a batch takes the sum of its calls.
  double time_calls(Path p, int calls, CacheState cache) override {
    paths_seen |= p == Path::gather ? 1 : 2;
    if (cache == CacheState::hot && calls == 1 && sampling_calls == 0) {
      ++warmup_calls;
    } else {
      ++sampling_calls;
      batch_sizes_min = std::min(batch_sizes_min, calls);
      batch_sizes_max = std::max(batch_sizes_max, calls);
      if (cache == CacheState::cold) ++cold_samples;
    }
    double total = 0;
    for (int i = 0; i < calls; ++i) total += times_[next_++ % times_.size()];
    return total;
  }

  int warmup_calls = 0, sampling_calls = 0, cold_samples = 0, paths_seen = 0;
  int batch_sizes_min = std::numeric_limits<int>::max(), batch_sizes_max = 0;

 private:
  double resolution_;
  std::vector<double> times_;
  std::size_t next_ = 0;
};

// No warm-up or minimum sampling time, so only counts and the budget decide.
SamplingPolicy quick_policy() {
  SamplingPolicy p;
  p.warmup_s = 0;
  p.min_time_s = 0;
  p.budget_s = 1000;  // never reached where a test expects another rule to stop sampling
  p.cache = CacheState::cold;
  return p;
}

}  // namespace

// --- calls_per_sample -------------------------------------------------------------------

TEST_CASE("a call shorter than 1000 timer ticks is batched up to at least 1000 ticks") {
  // 1000 * 2^-20 s / 2^-25 s per call = 32000 calls exactly.
  CHECK(calls_per_sample(0x1p-20, 0x1p-25) == 32000);
  // 1e-3 s / 3e-7 s = 3333.3 -> 3334 calls: at least the target, not one fewer.
  const int n = calls_per_sample(1e-6, 3e-7);
  CHECK(n == 3334);
  CHECK(n * 3e-7 >= 1000 * 1e-6);
}

TEST_CASE("a call longer than 1000 timer ticks is not batched") {
  CHECK(calls_per_sample(1e-9, 1e-3) == 1);
  CHECK(calls_per_sample(0x1p-30, 1000 * 0x1p-30) == 1);  // exactly 1000 ticks
}

TEST_CASE("a call of zero or unknown length is not batched") {
  CHECK(calls_per_sample(1e-6, 0) == 1);
  CHECK(calls_per_sample(1e-6, -1) == 1);
  CHECK(calls_per_sample(1e-6, std::numeric_limits<double>::quiet_NaN()) == 1);
}

TEST_CASE("batching is capped at a million calls per sample") {
  CHECK(calls_per_sample(1.0, 1e-12) == 1000000);
}

// --- measure_point ----------------------------------------------------------------------

TEST_CASE("the sampler batches short calls and reports seconds per call") {
  FakeBackend fake(0x1p-20, {0x1p-25});
  const Measurement m = measure_point(fake, Path::fused, quick_policy());
  CHECK(m.calls_per_sample == 32000);
  CHECK(fake.batch_sizes_min == 32000);
  CHECK(fake.batch_sizes_max == 32000);
  CHECK(m.per_call.min == 0x1p-25);
  CHECK(m.per_call.max == 0x1p-25);
}

TEST_CASE("the warm-up takes its fastest call as the per-call estimate") {
  // The first call is slow (first touch); later ones take 2^-25 s.
  FakeBackend fake(0x1p-20, {1e-3, 0x1p-25, 0x1p-25, 0x1p-25});
  const Measurement m = measure_point(fake, Path::gather, quick_policy());
  CHECK(fake.warmup_calls >= 2);
  CHECK(m.calls_per_sample == 32000);
}

TEST_CASE("warm-up calls run hot and single while samples use the policy's cache state") {
  FakeBackend fake(1e-9, {1e-3});
  SamplingPolicy p = quick_policy();
  p.min_samples = 5;
  measure_point(fake, Path::gather, p);
  CHECK(fake.warmup_calls == 3);  // no warm-up time asked for: the minimum of three calls
  CHECK(fake.sampling_calls == 5);
  CHECK(fake.cold_samples == 5);
  CHECK(fake.paths_seen == 1);  // gather only
}

TEST_CASE("hot sampling never asks for a flush") {
  FakeBackend fake(1e-9, {1e-3});
  SamplingPolicy p = quick_policy();
  p.cache = CacheState::hot;
  p.min_samples = 4;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.per_call.count == 4);
  CHECK(fake.cold_samples == 0);
}

TEST_CASE("constant times converge as soon as the minimum sample count is reached") {
  FakeBackend fake(1e-9, {2e-3});
  SamplingPolicy p = quick_policy();
  p.min_samples = 7;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK(m.converged);
  CHECK(m.per_call.count == 7);
  CHECK(m.per_call.min == 2e-3);
  CHECK(m.per_call.median == 2e-3);
  CHECK(m.per_call.noise == 0.0);
}

TEST_CASE("noisy times stop at the sample cap without converging") {
  FakeBackend fake(1e-9, {1e-3, 3e-3, 2e-3, 9e-3});
  SamplingPolicy p = quick_policy();
  p.noise_target = 1e-9;
  p.min_samples = 3;
  p.max_samples = 20;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK_FALSE(m.converged);
  CHECK(m.per_call.count == 20);
  CHECK(m.per_call.min == 1e-3);
  CHECK(m.per_call.max == 9e-3);
}

TEST_CASE("noisy times stop at the time budget without converging") {
  FakeBackend fake(1e-9, {1e-3, 3e-3, 2e-3, 9e-3});
  SamplingPolicy p = quick_policy();
  p.noise_target = 1e-9;  // unreachable: the noise of this spread falls as 1/sqrt(n)
  p.min_samples = 3;
  p.max_samples = std::numeric_limits<int>::max();
  p.budget_s = 0.05;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK_FALSE(m.converged);
  CHECK(m.per_call.count >= 3);
  CHECK(m.per_call.count < p.max_samples);
}

TEST_CASE("the time budget caps sampling even below the minimum sample count") {
  FakeBackend fake(1e-9, {1e-3});
  SamplingPolicy p = quick_policy();
  p.min_samples = 100'000'000;  // more than a 0.05 s budget can take
  p.max_samples = std::numeric_limits<int>::max();
  p.budget_s = 0.05;
  const Measurement m = measure_point(fake, Path::fused, p);
  CHECK_FALSE(m.converged);
  CHECK(m.per_call.count >= 3);
  CHECK(m.per_call.count < p.min_samples);
}

// --- validate(SamplingPolicy) -------------------------------------------------------------

TEST_CASE("the default sampling policy is valid") {
  CHECK_NOTHROW(validate(SamplingPolicy{}));
}

TEST_CASE("a zero, negative or NaN noise target is rejected naming --noise") {
  for (double bad : {0.0, -0.01, std::numeric_limits<double>::quiet_NaN()}) {
    SamplingPolicy p;
    p.noise_target = bad;
    CAPTURE(bad);
    CHECK(error_message([&] { validate(p); }).find("--noise") != std::string::npos);
  }
}

TEST_CASE("a zero or negative budget is rejected naming --budget") {
  for (double bad : {0.0, -1.0}) {
    SamplingPolicy p;
    p.budget_s = bad;
    CAPTURE(bad);
    CHECK(error_message([&] { validate(p); }).find("--budget") != std::string::npos);
  }
}

TEST_CASE("fewer than one minimum sample is rejected naming --min-samples") {
  SamplingPolicy p;
  p.min_samples = 0;
  const std::string msg = error_message([&] { validate(p); });
  CHECK(msg.find("--min-samples") != std::string::npos);
  CHECK(msg.find("got 0") != std::string::npos);
}

// --- validate(SweepConfig) ----------------------------------------------------------------

TEST_CASE("a sweep with no path, no length or negative threads is rejected") {
  SweepConfig c;
  CHECK_NOTHROW(validate(c));
  c.paths.clear();
  CHECK(error_message([&] { validate(c); }).find("--path") != std::string::npos);
  c = SweepConfig{};
  c.auto_lengths = false;
  c.lengths.clear();
  CHECK(error_message([&] { validate(c); }).find("--lengths") != std::string::npos);
  c = SweepConfig{};
  c.threads = -1;
  CHECK(error_message([&] { validate(c); }).find("--threads") != std::string::npos);
  c = SweepConfig{};
  c.shape.kv_heads = 5;
  CHECK_THROWS_AS(validate(c), InputError);
}

// --- replicas_for -----------------------------------------------------------------------

// replicas = clamp(min(ceil(3 * cache / bytes), ceil(2 * 1000 * resolution / floor_s)), 1, 256)
// with floor_s = bytes / read_gbps / 1e9, the fastest a call could be.
TEST_CASE(
    "replicas stop at twice the batch a sample needs when that is fewer than eviction needs") {
  // 3 MB per call, 10 MB cache: eviction wants ceil(3e7 / 3e6) = 10. At 10 GB/s a call takes at
  // least 3e-4 s; a sample of 1000 * 1e-6 s needs 3.33 calls, twice that rounds up to 7.
  CHECK(replicas_for(3'000'000, 10'000'000, 1e-6, 10) == 7);
}

TEST_CASE("replicas stop at what evicts the cache when that is fewer than the batch needs") {
  // 2 MB cache: ceil(6e6 / 3e6) = 2 replicas evict it.
  CHECK(replicas_for(3'000'000, 2'000'000, 1e-6, 10) == 2);
}

TEST_CASE("replicas are capped at 256 for tiny calls") {
  // 1 kB per call against a 1 GB cache: eviction wants 3e6, the batch 2e4.
  CHECK(replicas_for(1000, 1'000'000'000, 1e-6, 10) == 256);
}

TEST_CASE("cold replicas stay within 8 GiB of pool, whole blocks counted") {
  // bf16, B=1 Hq=Hkv=1 D=16, a block of 2^20 tokens, L=16: a call reads 1 KiB (256 replicas by
  // replicas_for) but a replica's pools take 2 * 2^20 * 16 * 2 bytes = 64 MiB: 128 fit in 8 GiB.
  Workload w{make_shape(1, 1, 1, 16, 1 << 20), DType::bf16, 16, 1, 1, std::nullopt};
  CHECK(replicas_for(w.kv_bytes_per_call(), 1'000'000'000, 1e-6, 10) == 256);
  CHECK(cold_replicas(w, 1'000'000'000, 1e-6, 10) == 128);
  // Where the pool is small, replicas_for decides.
  Workload small{make_shape(1, 1, 1, 16, 16), DType::bf16, 16, 1, 1, std::nullopt};
  CHECK(cold_replicas(small, 1'000'000'000, 1e-6, 10) == 256);
}

TEST_CASE("a call larger than the cache needs one replica") {
  CHECK(replicas_for(1'000'000'000'000, 10'000'000, 1e-6, 10) == 1);
}

TEST_CASE("zero bytes or an unmeasured ceiling still give at least one replica") {
  CHECK(replicas_for(0, 10'000'000, 1e-6, 10) == 1);
  CHECK(replicas_for(-5, 10'000'000, 1e-6, 10) == 1);
  // A ceiling of 0 GB/s is taken as 1 GB/s: floor 3e-3 s, batch ceil(2e-3 / 3e-3) = 1.
  CHECK(replicas_for(3'000'000, 10'000'000, 1e-6, 0) == 1);
}

// --- speedup_of ---------------------------------------------------------------------------

TEST_CASE("speedup is gather time over fused time") {
  CHECK(speedup_of(3e-3, 1.5e-3) == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(speedup_of(1e-3, 4e-3) == doctest::Approx(0.25).epsilon(1e-15));
}

TEST_CASE("speedup raises on a zero, negative or NaN time, naming both") {
  CHECK_THROWS_AS(speedup_of(0, 1e-3), InputError);
  CHECK_THROWS_AS(speedup_of(1e-3, 0), InputError);
  CHECK_THROWS_AS(speedup_of(-1e-3, 1e-3), InputError);
  CHECK_THROWS_AS(speedup_of(1e-3, std::numeric_limits<double>::quiet_NaN()), InputError);
  const std::string msg = error_message([] { speedup_of(2e-3, 0); });
  CHECK(msg.find("0.002") != std::string::npos);
  CHECK(msg.find("fused 0") != std::string::npos);
}
