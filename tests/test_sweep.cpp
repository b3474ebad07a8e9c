// The sweep§4 over fake backends: verification before timing, backends that
// cannot run or fail under auto and under an explicit --backend, replicas per cache state,
// speedups. The fakes return scripted times without doing any work, so every assertion is on
// counts, statuses and closed-form numbers, never on how long anything took.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/reference.hpp"
#include "measure/results.hpp"
#include "measure/run_memory.hpp"
#include "measure/sweep.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

enum class FailAt { nowhere, open, prepare, time_calls };

// What one fake backend does.
struct Script {
  double resolution_s = 1e-9;
  std::int64_t cache_bytes = 1 << 20;
  double read_gbps = 10;
  // A call at history L takes per_token_s * L: t = c * L, exponent one.
  double gather_per_token_s = 3e-6;
  double fused_per_token_s = 1e-6;
  double fixed_s = 0;        // added to every call: t = fixed + per_token * L
  double fused_fixed_s = 0;  // added to fused calls too
  // From the `later_from_ceiling`-th ceiling measurement on (1 = the first), every call takes
  // later_fixed_s + later_per_token_s * L instead, both paths: a machine that changed speed.
  int later_from_ceiling = 0;  // 0: never
  double later_fixed_s = 0, later_per_token_s = 0;
  std::int64_t memory_bytes = 1ll << 40;  // what memory_available_bytes() says
  double prepare_sleep_s = 0;             // wall time each prepare() takes
  std::vector<double> read_gbps_runs;     // successive ceilings, where they change
  bool disturbed = false;                 // every sample's threads lost their cores
  std::optional<Path> wrong_path;         // returns an output off by half its norm
  FailAt fail_at = FailAt::nowhere;
  // Raises the interrupt flag, as a signal handler would: in the first time_calls at this
  // length, or while measuring the ceilings.
  std::optional<std::int64_t> interrupt_at_length;
  bool interrupt_in_ceilings = false;
  // Shared by the fakes of several devices: each first prepare() waits (up to 20 s) until
  // `meet_count` fakes have arrived, which only fakes running at the same time can do.
  std::shared_ptr<std::atomic<int>> meet;
  // What name() says, where it differs from the name the sweep opened the fake under (a real
  // CUDA backend says "cuda" whichever device it is).
  std::string reported_name;
  int meet_count = 0;
  bool met = false;  // set in the fake's log when it saw every other arrive
};

// What one fake backend was asked; it outlives the backend, which the sweep owns.
struct Log {
  std::map<Path, int> time_calls;              // per path
  std::vector<int> prepared_replicas;          // per prepare(), in order
  std::vector<std::int64_t> prepared_lengths;  // per prepare(), in order
  std::int64_t most_workload_bytes = 0;        // the largest workload prepared
  bool met = false;                            // Script::meet: every other fake arrived in time
};

class FakeBackend : public Backend {
 public:
  FakeBackend(std::string name, const Script& script, Log& log)
      : name_(std::move(name)), script_(script), log_(log) {}

  std::string_view name() const override {
    return script_.reported_name.empty() ? std::string_view(name_) : script_.reported_name;
  }
  double timer_resolution_s() const override { return script_.resolution_s; }
  std::int64_t cache_bytes() const override { return script_.cache_bytes; }
  Bandwidths measure_bandwidths() override {
    if (script_.interrupt_in_ceilings) {
      request_interrupt(SIGTERM);
      throw_if_interrupted();
    }
    ++ceilings_measured_;
    const double read = ceiling_calls_ < script_.read_gbps_runs.size()
                            ? script_.read_gbps_runs[ceiling_calls_++]
                            : script_.read_gbps;
    return {read, read / 2, 1 << 20};
  }
  bool last_sample_disturbed() const override { return script_.disturbed; }

  std::int64_t memory_available_bytes() const override { return script_.memory_bytes; }

  void prepare(HostWorkload&& w) override {
    log_.prepared_replicas.push_back(w.workload.replicas);
    log_.prepared_lengths.push_back(w.workload.length);
    log_.most_workload_bytes = std::max(log_.most_workload_bytes, workload_bytes(w.workload));
    if (script_.prepare_sleep_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(script_.prepare_sleep_s));
    if (script_.meet && !arrived_) {
      arrived_ = true;
      script_.meet->fetch_add(1);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (script_.meet->load() < script_.meet_count &&
             std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      log_.met = script_.meet->load() >= script_.meet_count;
    }
    if (script_.fail_at == FailAt::prepare) throw BackendError(name_ + ": out of device memory");
    work_ = std::make_unique<HostWorkload>(std::move(w));
  }

  std::vector<double> run_for_check(Path p) override {
    std::vector<double> out = reference_attention(*work_, 0);
    if (p == script_.wrong_path)
      for (double& x : out) x *= 1.5;
    return out;
  }

  double time_calls(Path p, int calls, CacheState) override {
    ++log_.time_calls[p];
    if (script_.fail_at == FailAt::time_calls) throw BackendError(name_ + ": launch failed");
    if (work_->workload.length == script_.interrupt_at_length) request_interrupt(SIGINT);
    const double per_token =
        p == Path::gather ? script_.gather_per_token_s : script_.fused_per_token_s;
    const double length = double(work_->workload.length);
    if (script_.later_from_ceiling > 0 && ceilings_measured_ >= script_.later_from_ceiling)
      return calls * (script_.later_fixed_s + script_.later_per_token_s * length);
    const double fixed = script_.fixed_s + (p == Path::fused ? script_.fused_fixed_s : 0.0);
    return calls * (fixed + per_token * length);
  }

 private:
  std::string name_;
  Script script_;
  Log& log_;
  std::unique_ptr<HostWorkload> work_;
  std::size_t ceiling_calls_ = 0;
  int ceilings_measured_ = 0;
  bool arrived_ = false;
};

// Fakes by backend name; a name without a script is unavailable, as a missing driver would be.
struct Fakes {
  std::map<std::string, Script> scripts;
  std::map<std::string, Log> logs;

  BackendFactory factory() {
    return [this](const std::string& name) -> std::unique_ptr<Backend> {
      const auto it = scripts.find(name);
      if (it == scripts.end()) throw BackendUnavailable("no " + name + " device (fake)");
      if (it->second.fail_at == FailAt::open) throw BackendError(name + ": context lost");
      return std::make_unique<FakeBackend>(name, it->second, logs[name]);
    };
  }
};

// A small f32 shape at three lengths; constant scripted times converge at three samples, and
// with no warm-up or minimum time nothing waits on the clock.
SweepConfig small_sweep(BackendChoice backend) {
  SweepConfig c;
  c.backend = backend;
  c.auto_lengths = false;
  c.lengths = {16, 64, 256};
  c.shape.batch = 1;
  c.shape.q_heads = 4;
  c.shape.kv_heads = 2;
  c.shape.head_dim = 8;
  c.shape.block_size = 4;
  c.dtype = DType::f32;
  c.sampling.warmup_s = 0;
  c.sampling.min_time_s = 0;
  c.sampling.min_samples = 3;
  c.sampling.budget_s = 1000;  // never the rule that stops sampling here
  return c;
}

const PathResult& result_of(const RunResult& run, const std::string& backend, Path p) {
  const auto it = std::find_if(run.results.begin(), run.results.end(), [&](const PathResult& r) {
    return r.backend == backend && r.path == p;
  });
  REQUIRE_MESSAGE(it != run.results.end(), "no result for " << backend << " " << to_string(p));
  return *it;
}

const BackendResult& backend_of(const RunResult& run, const std::string& name) {
  const auto it = std::find_if(run.backends.begin(), run.backends.end(),
                               [&](const BackendResult& b) { return b.name == name; });
  REQUIRE_MESSAGE(it != run.backends.end(), "no backend " << name);
  return *it;
}

}  // namespace

// --- verification before timing ------------------------------------------------------------

TEST_CASE("a path that fails verification is recorded failed with a reason and never timed") {
  Fakes fakes;
  fakes.scripts["cpu"].wrong_path = Path::fused;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  const PathResult& fused = result_of(run, "cpu", Path::fused);
  CHECK(fused.status == Status::failed);
  CHECK(fused.reason.find("verification failed") != std::string::npos);
  CHECK(fused.points.empty());
  CHECK_FALSE(fused.fit);
  CHECK(fakes.logs["cpu"].time_calls[Path::fused] == 0);
}

TEST_CASE("the path that passes verification is still timed and fitted beside a failing one") {
  Fakes fakes;
  fakes.scripts["cpu"].wrong_path = Path::fused;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  const PathResult& gather = result_of(run, "cpu", Path::gather);
  CHECK(gather.status == Status::ok);
  CHECK(gather.points.size() == 3);
  CHECK(fakes.logs["cpu"].time_calls[Path::gather] > 0);
  REQUIRE(gather.fit);
  CHECK(gather.fit->power.exponent == doctest::Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a failed verification makes all_checks_passed false") {
  Fakes fakes;
  fakes.scripts["cpu"].wrong_path = Path::gather;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK_FALSE(run.all_checks_passed());
  Fakes good;
  good.scripts["cpu"];
  CHECK(run_sweep(small_sweep(BackendChoice::cpu), {}, good.factory()).all_checks_passed());
}

// --- backends that cannot run or fail -----------------------------------------------------------

TEST_CASE("under auto a backend that is unavailable is recorded so and the other still runs") {
  Fakes fakes;
  fakes.scripts["cpu"];  // no cuda script: its factory throws BackendUnavailable
  const RunResult run = run_sweep(small_sweep(BackendChoice::auto_), {}, fakes.factory());
  const BackendResult& cuda = backend_of(run, "cuda");
  CHECK(cuda.status == Status::unavailable);
  CHECK(cuda.reason.find("no cuda device") != std::string::npos);
  for (const Path& p : {Path::gather, Path::fused}) {
    CHECK(result_of(run, "cuda", p).status == Status::unavailable);
    CHECK(result_of(run, "cuda", p).reason == cuda.reason);
    CHECK(result_of(run, "cpu", p).status == Status::ok);
    CHECK(result_of(run, "cpu", p).points.size() == 3);
  }
}

TEST_CASE("under auto a backend that throws BackendError is recorded failed beside the other") {
  for (FailAt where : {FailAt::open, FailAt::prepare, FailAt::time_calls}) {
    CAPTURE(int(where));
    Fakes fakes;
    fakes.scripts["cpu"].fail_at = where;  // the first backend fails, the second must still run
    fakes.scripts["cuda"];
    const RunResult run = run_sweep(small_sweep(BackendChoice::auto_), {}, fakes.factory());
    const BackendResult& cpu = backend_of(run, "cpu");
    CHECK(cpu.status == Status::failed);
    CHECK(cpu.reason.find("cpu: ") == 0);
    for (const Path& p : {Path::gather, Path::fused}) {
      const PathResult& failed = result_of(run, "cpu", p);
      CHECK(failed.status == Status::failed);
      CHECK(failed.reason == cpu.reason);
      CHECK(failed.points.empty());  // points timed before the failure are not kept
      CHECK(result_of(run, "cuda", p).status == Status::ok);
      CHECK(result_of(run, "cuda", p).points.size() == 3);
    }
    CHECK(backend_of(run, "cuda").status == Status::ok);
  }
}

TEST_CASE("an explicit --backend that is unavailable is an input error naming it") {
  Fakes fakes;
  fakes.scripts["cpu"];
  const std::string msg =
      error_message([&] { run_sweep(small_sweep(BackendChoice::cuda), {}, fakes.factory()); });
  CHECK(msg.find("--backend cuda") != std::string::npos);
  CHECK(msg.find("no cuda device") != std::string::npos);
}

TEST_CASE("an explicit --backend that throws BackendError is an input error naming it") {
  // Plain variables, not structured bindings: clang before 16 cannot capture those.
  for (const auto& backend :
       {std::pair{BackendChoice::cpu, "cpu"}, std::pair{BackendChoice::cuda, "cuda"}})
    for (FailAt where : {FailAt::open, FailAt::prepare, FailAt::time_calls}) {
      const BackendChoice choice = backend.first;
      const char* name = backend.second;
      CAPTURE(name);
      CAPTURE(int(where));
      Fakes fakes;
      fakes.scripts[name].fail_at = where;
      const std::string msg =
          error_message([&] { run_sweep(small_sweep(choice), {}, fakes.factory()); });
      CHECK(msg.find(std::string("--backend ") + name) != std::string::npos);
      CHECK(msg.find(std::string(name) + ": ") != std::string::npos);
    }
}

// --- replicas -------------------------------------------------------------------------------

TEST_CASE("a hot sweep times every point on one replica") {
  Fakes fakes;
  fakes.scripts["cpu"];
  SweepConfig c = small_sweep(BackendChoice::cpu);
  // Cold, this fake would get 10 replicas at L=16: 2048 bytes a call at 10 GB/s take 2.048e-7
  // s, and twice a 1000-tick batch of 1e-9 s ticks is ceil(9.77) calls.
  REQUIRE(replicas_for(2 * 16 * 2 * 8 * 4, 1 << 20, 1e-9, 10) == 10);
  c.sampling.cache = CacheState::hot;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  for (const PathResult& r : run.results)
    for (const PointResult& pt : r.points) CHECK(pt.replicas == 1);
  for (int replicas : fakes.logs["cpu"].prepared_replicas) CHECK(replicas == 1);
}

TEST_CASE("a cold sweep builds a replica per call when the batch outgrows the first replicas") {
  // Resolution 2^-20 s and calls of 10 * 2^-20 s: a sample batches 1000 / 10 = 100 calls.
  // The first estimate at L=16 is the ceil(3 * 4096 / 2048) = 6 replicas that evict a 4 kB
  // cache, fewer than the batch.
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.resolution_s = 0x1p-20;
  s.cache_bytes = 4096;
  s.gather_per_token_s = s.fused_per_token_s = 10 * 0x1p-20 / 16;
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.lengths = {16};
  c.paths = {Path::fused};
  REQUIRE(replicas_for(2048, s.cache_bytes, s.resolution_s, s.read_gbps) == 6);
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const PathResult& fused = result_of(run, "cpu", Path::fused);
  REQUIRE(fused.points.size() == 1);
  const PointResult& pt = fused.points[0];
  CHECK(pt.measurement.calls_per_sample == 100);
  CHECK(pt.replicas >= pt.measurement.calls_per_sample);
  const std::vector<int>& prepared = fakes.logs["cpu"].prepared_replicas;
  REQUIRE(prepared.size() >= 2);
  CHECK(prepared[prepared.size() - 2] == 6);  // timed first on the replicas that evict
  CHECK(prepared.back() == pt.replicas);      // then on a replica per call
}

TEST_CASE("a cold sweep caps the replicas a batch asks for at 256") {
  // Calls of 2^-30 s batch 1000 * 2^-20 / 2^-30 = 1024000, capped at a million calls a sample;
  // replicas grow from the 6 that evict a 4 kB cache and stop at 256 (2 kB calls are far
  // below what the 8 GiB pool budget would cap).
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.resolution_s = 0x1p-20;
  s.cache_bytes = 4096;
  s.gather_per_token_s = s.fused_per_token_s = 0x1p-30 / 16;
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.lengths = {16};
  c.paths = {Path::fused};
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const PathResult& fused = result_of(run, "cpu", Path::fused);
  REQUIRE(fused.points.size() == 1);
  CHECK(fused.points[0].measurement.calls_per_sample == 1000000);
  CHECK(fakes.logs["cpu"].prepared_replicas.front() == 1);  // the check's workload
  CHECK(fused.points[0].replicas == 256);
  CHECK(fakes.logs["cpu"].prepared_replicas.back() == 256);
}

// --- speedups -------------------------------------------------------------------------------

TEST_CASE("speedups appear only for backends and lengths where both paths were timed") {
  Fakes fakes;
  fakes.scripts["cpu"];                            // gather 3e-6 * L, fused 1e-6 * L
  fakes.scripts["cuda"].wrong_path = Path::fused;  // only gather is timed
  const RunResult run = run_sweep(small_sweep(BackendChoice::all), {}, fakes.factory());
  REQUIRE(run.speedups.size() == 3);
  const std::vector<std::int64_t> lengths{16, 64, 256};
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(run.speedups[i].backend == "cpu");
    CHECK(run.speedups[i].length == lengths[i]);
    CHECK(run.speedups[i].speedup == doctest::Approx(3.0).epsilon(1e-12));
  }
  CHECK(result_of(run, "cuda", Path::gather).points.size() == 3);
}

// --- validate(SweepConfig) --------------------------------------------------------------------

TEST_CASE("a negative, NaN or infinite --fit-from is rejected naming it") {
  for (double bad : {-1.0, -1e-9, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    CAPTURE(bad);
    SweepConfig c;
    c.fit_from = bad;
    CHECK(error_message([&] { validate(c); }).find("--fit-from") != std::string::npos);
  }
  SweepConfig c;
  c.fit_from = 64;
  CHECK_NOTHROW(validate(c));
}

TEST_CASE(
    "a sweep too large for this machine's memory is an input error before any backend opens") {
  // B = 2^20 at L = 2^30 needs about 4.6e18 bytes. Under auto too: bad input, not a backend
  // that failed.
  int opened = 0;
  const BackendFactory count = [&](const std::string&) -> std::unique_ptr<Backend> {
    ++opened;
    throw BackendUnavailable("never opened");
  };
  SweepConfig c = small_sweep(BackendChoice::auto_);
  c.shape.batch = 1 << 20;
  c.auto_lengths = false;
  c.lengths = {16, std::int64_t(1) << 30};
  const std::string msg = error_message([&] { run_sweep(c, {}, count); });
  CHECK(msg.find("bytes") != std::string::npos);
  CHECK(msg.find("L=1073741824") != std::string::npos);
  CHECK(opened == 0);
}

TEST_CASE("a sweep whose pools fit but whose run does not is refused before any backend opens") {
  // Pools of nearly four fifths of this machine's memory: the gather path's workspace of one
  // call's history (as large again) takes the run past it.
  int opened = 0;
  const BackendFactory count = [&](const std::string&) -> std::unique_ptr<Backend> {
    ++opened;
    throw BackendUnavailable("never opened");
  };
  SweepConfig c;
  c.backend = BackendChoice::cpu;
  c.auto_lengths = false;
  c.lengths = {16384};  // 64 MiB of bf16 K and V a sequence
  const double limit = double(host_memory_limit(physical_memory_bytes()));
  c.shape.batch = int(0.95 * limit / double(1 << 26));
  const std::string msg = error_message([&] { run_sweep(c, {}, count); });
  CHECK(msg.find("bytes of host memory at its peak (L=16384, B=" + std::to_string(c.shape.batch) +
                 " held") != std::string::npos);
  CHECK(opened == 0);
}

TEST_CASE("a block size longer than the longest length is refused") {
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.shape.block_size = 1 << 20;
  c.lengths = {16, 64};
  CHECK(error_message([&] { run_sweep(c); }) ==
        "--block-size 1048576 is longer than the longest length, 64: each sequence would be one "
        "block of mostly padding");
}

// --- the auto grid --------------------------------------------------------------------------

namespace {

// --max-length 2^18, not the default 2^22: the checks verify up to the longest length the
// grid may reach, and a reference pass over 4M tokens takes minutes under the sanitizers.
SweepConfig auto_sweep() {
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.auto_lengths = true;
  c.lengths.clear();
  c.max_length = 1 << 18;
  return c;
}

std::vector<std::int64_t> lengths_of(const PathResult& r) {
  std::vector<std::int64_t> out;
  for (const PointResult& p : r.points) out.push_back(p.length);
  return out;
}

}  // namespace

TEST_CASE("an auto grid grows x4 from 16 and stops each path once it reaches its asymptote") {
  // gather: t = 3 us * L, length-dependent from the start: 16..1024 suffice. fused: t = 100 us
  // + 1 us * L, whose shares are 0.14, 0.39, 0.72, 0.91 at 16..1024: four lengths from 1024.
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.fused_per_token_s = 1e-6;
  const auto fused_fixed = 1e-4;
  s.fixed_s = 0;
  // One script serves both paths; the fused fixed cost rides on a second fake backend name.
  fakes.scripts["cuda"] = s;
  fakes.scripts["cuda"].fixed_s = fused_fixed;
  SweepConfig c = auto_sweep();
  c.backend = BackendChoice::all;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const PathResult& gather = result_of(run, "cpu", Path::gather);
  CHECK(lengths_of(gather) == std::vector<std::int64_t>{16, 64, 256, 1024});
  CHECK(gather.grid_stop == GridStop::reached);
  REQUIRE(gather.fit);
  CHECK(gather.fit->asymptote_reached);
  CHECK(gather.fit->power.exponent == doctest::Approx(1.0).epsilon(1e-9));
  const PathResult& slow = result_of(run, "cuda", Path::fused);
  CHECK(lengths_of(slow) == std::vector<std::int64_t>{16, 64, 256, 1024, 4096, 16384, 65536});
  CHECK(slow.grid_stop == GridStop::reached);
  REQUIRE(slow.fit);
  CHECK(slow.fit->fit_from == 1024);
  CHECK(slow.fit->fit_from_auto);
  CHECK(slow.fit->asymptote_reached);
  CHECK(slow.fit->affine.fixed_s == doctest::Approx(fused_fixed).epsilon(1e-9));
  CHECK(slow.fit->affine.marginal_s == doctest::Approx(1e-6).epsilon(1e-9));
  // The effective bandwidth: 2 * Hkv 2 * D 8 * 4 bytes a token over 1 us a token.
  REQUIRE(slow.fit->effective_gbps);
  CHECK(*slow.fit->effective_gbps == doctest::Approx(128 / 1e-6 / 1e9).epsilon(1e-9));
}

TEST_CASE("an auto grid stops at --max-length and its fit says not reached") {
  Fakes fakes;
  fakes.scripts["cpu"].fixed_s = 1e-4;
  SweepConfig c = auto_sweep();
  c.max_length = 300;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    CHECK(lengths_of(r) == std::vector<std::int64_t>{16, 64, 256});
    CHECK(r.grid_stop == GridStop::max_length);
    CHECK(r.grid_reason == "L=1024 is past --max-length 300");
    REQUIRE(r.fit);
    CHECK_FALSE(r.fit->asymptote_reached);
  }
}

TEST_CASE("an auto grid never prepares a workload past half the memory available") {
  // 128 bytes of K/V a token: L = 4096 needs over 1 MB of pools, more than half of 2 MB.
  Fakes fakes;
  fakes.scripts["cpu"].fixed_s = 1e-3;  // far from the asymptote: only memory can stop it
  fakes.scripts["cpu"].memory_bytes = 2 << 20;
  const RunResult run = run_sweep(auto_sweep(), {}, fakes.factory());
  const PathResult& r = result_of(run, "cpu", Path::fused);
  CHECK(r.grid_stop == GridStop::memory);
  CHECK(r.grid_reason.find("more than half of the") != std::string::npos);
  CHECK(lengths_of(r).back() < 4096);
  CHECK(fakes.logs["cpu"].most_workload_bytes <= (1 << 20));
  REQUIRE(r.fit);
  CHECK_FALSE(r.fit->asymptote_reached);
}

TEST_CASE("an auto grid stops when the next length would not fit in the sweep budget") {
  // Each prepare takes 30 ms: after a length, the next is predicted at 4x its wall time.
  Fakes fakes;
  fakes.scripts["cpu"].fixed_s = 1e-3;
  fakes.scripts["cpu"].prepare_sleep_s = 0.03;
  SweepConfig c = auto_sweep();
  c.sweep_budget_s = 0.2;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const PathResult& r = result_of(run, "cpu", Path::fused);
  CHECK(r.grid_stop == GridStop::sweep_budget);
  CHECK(r.grid_reason.find("past --sweep-budget 0.2 s") != std::string::npos);
  CHECK(r.points.size() < 4);
  if (r.fit) CHECK_FALSE(r.fit->asymptote_reached);
}

TEST_CASE("an explicit grid times every length and records so") {
  Fakes fakes;
  fakes.scripts["cpu"].fixed_s = 1e-3;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    CHECK(lengths_of(r) == std::vector<std::int64_t>{16, 64, 256});
    CHECK(r.grid_stop == GridStop::explicit_lengths);
    CHECK(r.grid_reason.empty());
  }
}

// --- sampling rounds -------------------------------------------------------------------------

namespace {

// The lengths prepared for timing: what came after the verification's prepares.
std::vector<std::int64_t> timing_prepares(const Log& log, std::size_t checks) {
  return {log.prepared_lengths.begin() + std::ptrdiff_t(checks), log.prepared_lengths.end()};
}

}  // namespace

TEST_CASE("later rounds sample every point again, longest then shortest first, and keep it all") {
  Fakes one, three;
  one.scripts["cpu"];
  three.scripts["cpu"];
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.rounds = 1;
  const RunResult single = run_sweep(c, {}, one.factory());
  c.rounds = 3;
  const RunResult run = run_sweep(c, {}, three.factory());
  // Round 1 walks up; round 2 starts where it ended (no prepare) and walks down; round 3 up.
  const std::size_t checks = one.logs["cpu"].prepared_lengths.size() - 3;
  CHECK(timing_prepares(one.logs["cpu"], checks) == std::vector<std::int64_t>{16, 64, 256});
  CHECK(timing_prepares(three.logs["cpu"], checks) ==
        std::vector<std::int64_t>{16, 64, 256, 64, 16, 64, 256});
  CHECK(backend_of(single, "cpu").ceilings_between.empty());
  CHECK(backend_of(run, "cpu").ceilings_between.size() == 2);
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    const PathResult& r1 = result_of(single, "cpu", p);
    REQUIRE(r.points.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(r1.points[i].measurement.rounds == 1);
      CHECK(r.points[i].measurement.rounds == 3);
      // At least one more clean sample a later round, all of them summarized.
      CHECK(r.points[i].measurement.per_call.count >= r1.points[i].measurement.per_call.count + 2);
      CHECK(std::size_t(r.points[i].measurement.per_call.count) ==
            r.points[i].measurement.clean_samples.size());
    }
  }
}

TEST_CASE("a point's time comes from every round: a first round on a slow machine is outweighed") {
  // Until the third ceiling measurement (the one after round 2) calls take twice as long.
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.gather_per_token_s = s.fused_per_token_s = 2e-6;
  s.later_from_ceiling = 3;
  s.later_per_token_s = 1e-6;
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.rounds = 3;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  c.rounds = 2;  // the machine is still slow in round 2
  Fakes slow;
  slow.scripts["cpu"] = s;
  const RunResult two = run_sweep(c, {}, slow.factory());
  for (const Path& p : {Path::gather, Path::fused}) {
    for (const PointResult& pt : result_of(run, "cpu", p).points) {
      CHECK(pt.seconds == doctest::Approx(1e-6 * double(pt.length)).epsilon(1e-12));
      CHECK(pt.measurement.per_call.max == doctest::Approx(2e-6 * double(pt.length)));
      CHECK(pt.gbps == doctest::Approx(double(pt.bytes.total()) / pt.seconds / 1e9));
    }
    for (const PointResult& pt : result_of(two, "cpu", p).points)
      CHECK(pt.seconds == doctest::Approx(2e-6 * double(pt.length)).epsilon(1e-12));
  }
}

TEST_CASE("a grid judged at its asymptote in round 1 but not over every round grows on") {
  // Round 1: t = 1 us * L, at the asymptote over 16..1024. From round 3 the calls cost
  // 200 us + 0.1 us * L: over every round the short lengths are far from length-dependent.
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.gather_per_token_s = s.fused_per_token_s = 1e-6;
  s.later_from_ceiling = 3;
  s.later_fixed_s = 2e-4;
  s.later_per_token_s = 1e-7;
  SweepConfig c = auto_sweep();
  c.rounds = 3;
  c.max_length = 65536;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    CHECK(lengths_of(r).size() > 4);  // past the 1024 where round 1 stopped
    CHECK(r.grid_stop != GridStop::not_timed);
    for (const PointResult& pt : r.points) CHECK(pt.measurement.rounds == 3);
    REQUIRE(r.fit);
    CHECK(r.fit->asymptote_reached == (r.grid_stop == GridStop::reached));
  }
}

TEST_CASE("a reopened grid goes on at its own next length, whatever the other path timed") {
  // Round 1: gather (t = 3 us * L) reaches its asymptote at 1024, fused (t = 100 us + 1 us * L)
  // at 65536. From round 3 every call costs 200 us + 0.1 us * L: over every round gather's
  // short lengths are no longer length-dependent, and its grid reopens at 4096, not after
  // fused's last length.
  Fakes fakes;
  Script& s = fakes.scripts["cpu"];
  s.gather_per_token_s = 3e-6;
  s.fused_per_token_s = 1e-6;
  s.fused_fixed_s = 1e-4;
  s.later_from_ceiling = 3;
  s.later_fixed_s = 2e-4;
  s.later_per_token_s = 1e-7;
  SweepConfig c = auto_sweep();
  c.rounds = 3;
  c.max_length = 65536;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const std::vector<std::int64_t> grid{16, 64, 256, 1024, 4096, 16384, 65536};
  const std::vector<std::int64_t> timed = lengths_of(result_of(run, "cpu", Path::gather));
  REQUIRE(timed.size() > 4);
  CHECK(std::equal(timed.begin(), timed.end(), grid.begin()));
  CHECK(lengths_of(result_of(run, "cpu", Path::fused)) == grid);
}

TEST_CASE("an auto grid starts no sampling round that would end past --sweep-budget") {
  // Each prepare sleeps 40 ms, so time only runs ahead of it. Over three lengths a later round
  // prepares two (80 ms), and by the check for round 5 at least 0.12 s of checks' prepares,
  // 0.12 s of the grid's and 0.24 s of rounds 2-4 have passed: 0.48 + 0.08 > 0.5. A machine
  // slow enough to stop the grid at 64 leaves the rounds nearly free: then only the counts agree.
  Fakes fakes;
  fakes.scripts["cpu"].prepare_sleep_s = 0.04;
  SweepConfig c = auto_sweep();
  c.rounds = 5;
  c.max_length = 256;
  c.sweep_budget_s = 0.5;
  const RunResult run = run_sweep(c, {}, fakes.factory());
  const PathResult& r = result_of(run, "cpu", Path::fused);
  REQUIRE_FALSE(r.points.empty());
  const int rounds = r.points.front().measurement.rounds;
  if (r.points.size() == 3) CHECK(rounds < 5);
  for (const PointResult& pt : r.points) CHECK(pt.measurement.rounds == rounds);
  CHECK(backend_of(run, "cpu").ceilings_between.size() == std::size_t(rounds - 1));
}

TEST_CASE("an auto grid stops at a point that kept disturbed samples, and takes no later round") {
  Fakes fakes;
  fakes.scripts["cpu"].disturbed = true;
  fakes.scripts["cpu"].fixed_s = 1e-3;  // far from the asymptote: only contention can stop it
  SweepConfig c = auto_sweep();
  c.rounds = 3;
  c.sampling.budget_s = 0.01;  // too short for clean samples to replace the disturbed ones
  const RunResult run = run_sweep(c, {}, fakes.factory());
  CHECK(run.quality.contended);
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    CHECK(lengths_of(r) == std::vector<std::int64_t>{16});
    CHECK(r.grid_stop == GridStop::contended);
    CHECK(r.grid_reason == "L=16 kept samples whose threads lost their cores: the machine is busy");
    CHECK(r.points.front().measurement.rounds == 1);
  }
  CHECK(backend_of(run, "cpu").ceilings_between.empty());
}

TEST_CASE("--rounds is auto or between 1 and 100") {
  SweepConfig c = small_sweep(BackendChoice::cpu);
  for (int bad : {0, -1, kMaxRounds + 1}) {
    c.rounds = bad;
    CHECK(error_message([&] { validate(c); }) ==
          "--rounds must be auto or between 1 and 100, got " + std::to_string(bad));
  }
  c.rounds = kMaxRounds;
  CHECK_NOTHROW(validate(c));
}

TEST_CASE("auto rounds are three on the CPU and one on a GPU") {
  Fakes fakes;
  fakes.scripts["cpu"];
  fakes.scripts["cuda:0"];
  fakes.scripts["cuda:1"];
  SweepConfig c = small_sweep(BackendChoice::all);
  c.devices = {0, 1};
  CHECK_FALSE(c.rounds);
  CHECK(c.rounds_on("cpu") == 3);
  CHECK(c.rounds_on("cuda") == 1);
  const RunResult run = run_sweep(c, {}, fakes.factory());
  for (const PathResult& r : run.results) {
    REQUIRE(r.points.size() == 3);
    for (const PointResult& p : r.points)
      CHECK(p.measurement.rounds == (r.backend == "cpu" ? 3 : 1));
  }
  c.rounds = 2;
  CHECK(c.rounds_on("cuda:1") == 2);
}

TEST_CASE("auto grid options are validated") {
  SweepConfig c = auto_sweep();
  c.max_length = 8;
  CHECK(error_message([&] { validate(c); }) ==
        "--max-length must be at least 16 with --lengths auto, got 8");
  c = auto_sweep();
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    c.sweep_budget_s = bad;
    CHECK(error_message([&] { validate(c); }).rfind("--sweep-budget must be", 0) == 0);
  }
}

// --- the run's quality verdict --------------------------------------------------------------

TEST_CASE("a quiet run is clean, and its ceiling is the best of every measurement") {
  Fakes fakes;
  fakes.scripts["cpu"].read_gbps_runs = {9.5, 10.0, 9.8, 9.9};
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK_FALSE(run.quality.contended);
  CHECK(run.quality.reasons.empty());
  const BackendResult& cpu = backend_of(run, "cpu");
  CHECK(cpu.ceilings_before.size() == kCeilingRoundsBefore);
  CHECK(cpu.ceilings_after.size() == kCeilingRoundsAfter);
  CHECK(cpu.ceilings_between.size() == kCpuAutoRounds - 1);
  CHECK(cpu.bandwidths.read_gbps == 10.0);
  for (const PointResult& p : result_of(run, "cpu", Path::fused).points)
    CHECK(p.ceiling_fraction == doctest::Approx(p.gbps / 10.0).epsilon(1e-12));
}

TEST_CASE("a read ceiling that moved by more than 30% during the sweep marks the run") {
  Fakes fakes;
  // Two before the sweep, one after each of the two later rounds, two after the sweep.
  fakes.scripts["cpu"].read_gbps_runs = {20, 19, 15, 14, 12, 11};
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK(run.quality.contended);
  REQUIRE(run.quality.reasons.size() == 1);
  CHECK(run.quality.reasons[0] ==
        "cpu read ceiling moved from 20 GB/s before the sweep to 12 GB/s after it");
}

TEST_CASE("points that had to keep disturbed samples mark the run contended, naming the path") {
  Fakes fakes;
  fakes.scripts["cpu"].disturbed = true;
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.sampling.budget_s = 0.01;  // too short for clean samples to replace the disturbed ones
  const RunResult run = run_sweep(c, {}, fakes.factory());
  CHECK(run.quality.contended);
  for (const PathResult& r : run.results)
    for (const PointResult& p : r.points) {
      CHECK(p.measurement.contended);
      CHECK(p.measurement.disturbed > 0);
    }
  CHECK(run.quality.reasons.size() == 2);
  CHECK(run.quality.reasons[0].rfind("cpu/gather: 3 of 3 points kept samples", 0) == 0);
}

TEST_CASE("other work a backend saw on its device marks the run contended") {
  struct Busy : FakeBackend {
    using FakeBackend::FakeBackend;
    std::vector<std::string> device_conditions() const override {
      return {"other processes used the GPU during the sweep (2 compute processes seen at once)"};
    }
  };
  Fakes fakes;
  Script& s = fakes.scripts["cuda"];
  const BackendFactory busy = [&](const std::string& name) -> std::unique_ptr<Backend> {
    return std::make_unique<Busy>(name, s, fakes.logs[name]);
  };
  const RunResult run = run_sweep(small_sweep(BackendChoice::cuda), {}, busy);
  CHECK(run.quality.contended);
  REQUIRE(run.quality.reasons.size() == 1);
  CHECK(run.quality.reasons[0] ==
        "cuda: other processes used the GPU during the sweep (2 compute processes seen at once)");
}

// --- a signal stops the sweep -------------------------------------------------------------------

namespace {

// The flag is process-wide: each test starts and ends without one.
struct CleanInterrupt {
  CleanInterrupt() { clear_interrupt(); }
  ~CleanInterrupt() { clear_interrupt(); }
};

}  // namespace

TEST_CASE(
    "a signal during a point keeps the points before it, fitted, and marks the run incomplete") {
  const CleanInterrupt clean;
  Fakes fakes;
  fakes.scripts["cpu"].interrupt_at_length = 1024;
  SweepConfig c = small_sweep(BackendChoice::cpu);
  c.lengths = {16, 64, 256, 1024, 4096};
  const RunResult run = run_sweep(c, {}, fakes.factory());
  CHECK_FALSE(run.complete());
  CHECK(run.signal == SIGINT);
  for (const Path& p : {Path::gather, Path::fused}) {
    const PathResult& r = result_of(run, "cpu", p);
    CHECK(r.status == Status::ok);
    REQUIRE(r.points.size() == 3);  // 16, 64, 256: the point at 1024 is dropped
    CHECK(r.points.back().length == 256);
    CHECK(r.grid_stop == GridStop::interrupted);
    REQUIRE(r.fit);
    CHECK(r.fit->power.n_points == 3);
    CHECK(r.fit->power.exponent == doctest::Approx(1.0).epsilon(1e-9));
  }
  CHECK(run.speedups.size() == 3);
}

TEST_CASE("a path stopped with one point keeps it without a fit, saying why") {
  const CleanInterrupt clean;
  Fakes fakes;
  fakes.scripts["cpu"].interrupt_at_length = 64;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK(run.signal == SIGINT);
  const PathResult& gather = result_of(run, "cpu", Path::gather);
  CHECK(gather.points.size() == 1);
  CHECK_FALSE(gather.fit);
  CHECK_FALSE(gather.fit_error.empty());
  CHECK(gather.grid_stop == GridStop::interrupted);
}

TEST_CASE("a signal during one backend starts no other backend") {
  const CleanInterrupt clean;
  Fakes fakes;
  fakes.scripts["cpu"].interrupt_at_length = 256;
  fakes.scripts["cuda"];
  const RunResult run = run_sweep(small_sweep(BackendChoice::all), {}, fakes.factory());
  CHECK(run.signal == SIGINT);
  CHECK(run.backends.size() == 1);
  CHECK(fakes.logs["cuda"].time_calls.empty());
  CHECK(result_of(run, "cpu", Path::gather).points.size() == 2);
}

TEST_CASE("a signal while the ceilings are measured lists every path untimed and interrupted") {
  const CleanInterrupt clean;
  Fakes fakes;
  fakes.scripts["cpu"].interrupt_in_ceilings = true;
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK(run.signal == SIGTERM);
  REQUIRE(run.results.size() == 2);
  for (const PathResult& r : run.results) {
    CHECK(r.status == Status::ok);
    CHECK(r.points.empty());
    CHECK(r.grid_stop == GridStop::interrupted);
    CHECK_FALSE(r.fit);
  }
  CHECK(fakes.logs["cpu"].time_calls.empty());
}

TEST_CASE("a run without a signal is complete") {
  const CleanInterrupt clean;
  Fakes fakes;
  fakes.scripts["cpu"];
  const RunResult run = run_sweep(small_sweep(BackendChoice::cpu), {}, fakes.factory());
  CHECK(run.complete());
  CHECK(run.signal == 0);
}

// --- several CUDA devices ---------------------------------------------------------------------

namespace {
// Fakes of devices 0 and 1, their logs made before the sweep's threads look them up.
SweepConfig two_devices(Fakes& fakes, BackendChoice choice = BackendChoice::cuda) {
  for (const char* name : {"cuda:0", "cuda:1"}) {
    fakes.scripts[name].reported_name = "cuda";  // as a real device backend does
    fakes.logs[name];
  }
  SweepConfig c = small_sweep(choice);
  c.devices = {0, 1};
  return c;
}
}  // namespace

TEST_CASE("several devices are backends cuda:N of their own, in device order, each timed") {
  Fakes fakes;
  const SweepConfig c = two_devices(fakes);
  const RunResult run = run_sweep(c, {}, fakes.factory());
  REQUIRE(run.backends.size() == 2);
  CHECK(run.backends[0].name == "cuda:0");
  CHECK(run.backends[1].name == "cuda:1");
  for (const char* name : {"cuda:0", "cuda:1"})
    for (const Path& p : {Path::gather, Path::fused})
      CHECK(result_of(run, name, p).points.size() == 3);
  CHECK(run.config.devices == std::vector<int>{0, 1});
  CHECK(run.slow_devices.empty());  // the same times
}

TEST_CASE("the devices are swept at the same time") {
  Fakes fakes;
  const SweepConfig c = two_devices(fakes);
  const auto meet = std::make_shared<std::atomic<int>>(0);
  for (const char* name : {"cuda:0", "cuda:1"}) {
    fakes.scripts[name].meet = meet;
    fakes.scripts[name].meet_count = 2;
  }
  run_sweep(c, {}, fakes.factory());
  CHECK(fakes.logs["cuda:0"].met);
  CHECK(fakes.logs["cuda:1"].met);
}

TEST_CASE("a device slower than its sibling beyond the spread and 2% is called out") {
  Fakes fakes;
  const SweepConfig c = two_devices(fakes);
  fakes.scripts["cuda:1"].fused_per_token_s = 1.1e-6;    // 10% slower on fused
  fakes.scripts["cuda:1"].gather_per_token_s = 3.03e-6;  // 1% slower on gather: within 2%
  const RunResult run = run_sweep(c, {}, fakes.factory());
  REQUIRE(run.slow_devices.size() == 3);
  for (const SlowDevice& d : run.slow_devices) {
    CHECK(d.backend == "cuda:1");
    CHECK(d.fastest == "cuda:0");
    CHECK(d.path == Path::fused);
    CHECK(d.ratio == doctest::Approx(1.1).epsilon(1e-9));
  }
  CHECK(run.slow_devices[0].length == 16);
  CHECK(run.slow_devices[2].length == 256);
}

TEST_CASE("a gap within the devices' sample spread is not called out") {
  RunResult run;
  for (const char* name : {"cuda:0", "cuda:1"}) {
    PathResult r;
    r.backend = name;
    r.path = Path::fused;
    PointResult p;
    p.length = 1024;
    const bool slow = std::string(name) == "cuda:1";
    p.measurement.per_call.min = p.seconds = slow ? 1.05e-3 : 1e-3;
    p.measurement.per_call.median = slow ? 1.08e-3 : 1.04e-3;  // spreads 30 + 40 us > 50 us gap
    r.points.push_back(p);
    run.results.push_back(r);
  }
  CHECK(slow_devices(run).empty());
  run.results[0].points[0].measurement.per_call.median = 1.03e-3;
  run.results[1].points[0].measurement.per_call.median = 1.06e-3;  // 30 + 10 us < 50 us
  REQUIRE(slow_devices(run).size() == 1);
  CHECK(slow_devices(run)[0].ratio == doctest::Approx(1.05));
}

TEST_CASE("a device that cannot run is the user's error under --backend cuda, skipped under auto") {
  Fakes fakes;
  SweepConfig c = two_devices(fakes);
  fakes.scripts.erase("cuda:1");  // unavailable
  CHECK(error_message([&] {
          run_sweep(c, {}, fakes.factory());
        }).find("--device 1 cannot run: no cuda:1 device") == 0);
  c.backend = BackendChoice::auto_;
  fakes.scripts["cpu"];
  const RunResult run = run_sweep(c, {}, fakes.factory());
  CHECK(backend_of(run, "cpu").status == Status::ok);
  CHECK(backend_of(run, "cuda:0").status == Status::ok);
  CHECK(backend_of(run, "cuda:1").status == Status::unavailable);
  CHECK(result_of(run, "cuda:0", Path::fused).points.size() == 3);
}

TEST_CASE("one device is the backend cuda, whichever it is") {
  CHECK(backend_names(BackendChoice::cuda, {1}) == std::vector<std::string>{"cuda"});
  CHECK(backend_names(BackendChoice::auto_, {0, 2}) ==
        std::vector<std::string>{"cpu", "cuda:0", "cuda:2"});
  CHECK(backend_names(BackendChoice::cpu, {0, 1}) == std::vector<std::string>{"cpu"});
  CHECK(device_of("cuda:12") == 12);
  CHECK_FALSE(is_device_backend("cuda"));
}

TEST_CASE("--device takes an index, an increasing list or all, and names bad text") {
  CHECK(parse_devices("0") == std::vector<int>{0});
  CHECK(parse_devices("3") == std::vector<int>{3});
  CHECK(parse_devices("0,1,3") == std::vector<int>{0, 1, 3});
  CHECK(parse_devices("all").empty());
  for (const char* bad : {"", "-1", "a", "0,", ",1", "1,0", "0,0", "1.5", "99999999999"})
    CHECK(error_message([&] { parse_devices(bad); }).find("--device '" + std::string(bad) + "'") ==
          0);
  std::vector<int> visible;  // every device this process sees, or device 0 where none is
  for (int d = 0; d < std::max(1, cuda_device_count()); ++d) visible.push_back(d);
  CHECK(resolve_devices({}) == visible);
  CHECK(resolve_devices({2, 5}) == std::vector<int>{2, 5});
}
