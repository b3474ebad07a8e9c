// The CPU contention probe: schedstat text parsed, the disturbed rule on constructed readings,
// and a real team read. Never asserts on how long anything took or whether the machine is busy.
#include <doctest/doctest.h>

#include <limits>

#include "backends/backend.hpp"
#include "backends/cpu/contention_probe.hpp"
#include "core/host_workload.hpp"
#include "core/shape.hpp"

using namespace readbench;
using namespace readbench::cpu;

TEST_CASE("schedstat gives the run-queue delay and the times put on a CPU") {
  const auto st = parse_schedstat("103065 2257940 2\n");
  REQUIRE(st.has_value());
  CHECK(st->run_delay_ns == 2257940);
  CHECK(st->scheduled_in == 2);
  CHECK(parse_schedstat("0 0 0").has_value());
}

TEST_CASE("malformed schedstat text is not read") {
  for (const char* bad : {"", "1 2", "a b c", "1 -2 3", "1 2 3 4", "1 2 3x"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_schedstat(bad).has_value());
  }
}

TEST_CASE("each time on a CPU excuses one wake-up's run-queue wait") {
  const SchedCounters before{0, 1'000'000, 10};
  // Three wake-ups waiting 15 us each: within the allowance, nothing lost.
  CHECK(lost_ns(before, {0, 1'045'000, 13}) == 0);
  // One wake-up, then 4 ms without a core: all but the allowance lost.
  CHECK(lost_ns(before, {1, 5'000'000, 11}) == 4'000'000 - kWakeAllowanceNs);
}

TEST_CASE("lost time is unknown without schedstat") {
  CHECK(lost_ns({0, -1, -1}, {1, 5'000'000, 11}) == -1);
  CHECK(lost_ns({0, 1, 1}, {1, -1, -1}) == -1);
}

TEST_CASE("lost time over 50 us disturbs a short sample") {
  ContentionReading r{2, 0, 50'001};
  CHECK(is_disturbed(r, 20e-6));
  r.max_lost_ns = 50'000;
  CHECK_FALSE(is_disturbed(r, 20e-6));
}

TEST_CASE("a long sample is disturbed only past 5% of its wall time") {
  ContentionReading r{2, 3, 400'000};  // 0.4 ms of a 10 ms sample: 4%
  CHECK_FALSE(is_disturbed(r, 10e-3));
  r.max_lost_ns = 600'000;
  CHECK(is_disturbed(r, 10e-3));
}

TEST_CASE("without schedstat any involuntary switch disturbs a sample") {
  CHECK(is_disturbed({2, 1, -1}, 1e-3));
  CHECK_FALSE(is_disturbed({2, 0, -1}, 1e-3));
}

TEST_CASE("a reading of no worker cannot tell and is not disturbed") {
  CHECK_FALSE(is_disturbed({0, -1, -1}, 1e-3));
  CHECK_FALSE(is_disturbed({0, 5, std::numeric_limits<std::int64_t>::max()}, 1e-3));
}

TEST_CASE("this thread's counters are readable") {
  const SchedCounters c = read_this_thread_counters();
  CHECK(c.involuntary_switches >= 0);
  CHECK(c.run_delay_ns >= -1);  // -1 only on a kernel without schedstat
  CHECK(c.scheduled_in >= -1);
}

TEST_CASE("a team of two is read on every worker before and after") {
  TeamProbe probe(2);
  probe.before();
  const ContentionReading r = probe.after();
  CHECK(r.threads_read >= 1);
  CHECK(r.threads_read <= 2);
  CHECK(r.involuntary_switches >= 0);
  CHECK(r.max_lost_ns >= -1);
}

TEST_CASE("the CPU backend judges each timed sample") {
  const auto backend = make_cpu_backend(2);
  const Shape small{1, 4, 2, 64, 16};  // B, Hq, Hkv, D, S
  backend->prepare(make_host_workload(Workload{small, DType::f32, 64, 1, 1, std::nullopt}));
  backend->time_calls(Path::fused, 2, CacheState::hot);
  const bool disturbed = backend->last_sample_disturbed();
  CHECK((disturbed || !disturbed));  // either answer is honest; the reading ran
  CHECK(backend->details().threads == 2);
  CHECK(backend->details().threads_from == "--threads");
  CHECK_FALSE(backend->details().wait_policy.empty());
}
