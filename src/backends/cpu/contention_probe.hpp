#pragma once
// Did the measuring threads keep their cores through a timed sample? Each worker reads its own
// scheduler counters before and after the timed region (outside it); the sample is disturbed
// when a worker waited on a run queue, ready to run but without a CPU, for long enough to
// matter (see is_disturbed).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace readbench::cpu {

// One thread's scheduler counters, cumulative since the thread started; -1: unreadable.
struct SchedCounters {
  std::int64_t involuntary_switches = -1;  // getrusage(RUSAGE_THREAD).ru_nivcsw
  std::int64_t run_delay_ns = -1;          // /proc/thread-self/schedstat, second field
  std::int64_t scheduled_in = -1;          // its third field: times put on a CPU
};

// "RUN_NS WAIT_NS TIMESLICES": the time spent runnable on a run queue (preempted, or woken and
// not yet running) and the times put on a CPU. None when not three non-negative integers.
struct Schedstat {
  std::int64_t run_delay_ns = 0;
  std::int64_t scheduled_in = 0;
};
std::optional<Schedstat> parse_schedstat(std::string_view text);

SchedCounters read_this_thread_counters();

// What a team of workers lost over a sample.
struct ContentionReading {
  int threads_read = 0;                    // workers whose counters were read before and after
  std::int64_t involuntary_switches = -1;  // summed over workers; -1: unreadable
  // The worst worker's run-queue wait beyond kWakeAllowanceNs for each time it was put on a
  // CPU; -1: unreadable.
  std::int64_t max_lost_ns = -1;
};

// Every parallel region wakes the workers that wait passively; each wake-up onto a free core
// waits on the run queue too (here about 9 us at the median, under 20 us at the 99th
// percentile). That is the policy's cost, not another process's: allowed once per time on CPU.
inline constexpr std::int64_t kWakeAllowanceNs = 20'000;
// Lost time of the worst worker above which a sample is disturbed: 50 us, or 5% of the sample's
// wall time when that is longer. A worker that lost its core to another process waits a
// scheduler slice (milliseconds), or the rest of the call.
inline constexpr std::int64_t kDisturbedFloorNs = 50'000;
inline constexpr double kDisturbedFraction = 0.05;

// A worker's lost time between two readings: its run-queue wait less the wake-up allowance for
// each time it was put on a CPU, at least 0; -1 where either reading lacks schedstat.
std::int64_t lost_ns(const SchedCounters& before, const SchedCounters& after);

// Judged on the lost time where schedstat is readable, else on any involuntary switch. A
// reading with no worker read cannot tell, and is not disturbed.
bool is_disturbed(const ContentionReading& r, double wall_s);
// Reads every worker of an OpenMP team of `threads` before and after a region. Workers are
// matched by kernel thread id, so a team whose threads changed in between is read only where
// the same thread was seen both times.
class TeamProbe {
 public:
  explicit TeamProbe(int threads);
  void before();
  ContentionReading after();

 private:
  struct Slot {
    long tid = 0;
    SchedCounters counters;
  };
  void read_team(std::vector<Slot>& into);

  int threads_;
  std::vector<Slot> before_, after_;
};

}  // namespace readbench::cpu
