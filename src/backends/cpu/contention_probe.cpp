#include "backends/cpu/contention_probe.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace readbench::cpu {

std::optional<Schedstat> parse_schedstat(std::string_view text) {
  std::int64_t fields[3] = {};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (std::int64_t& f : fields) {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    const auto [next, ec] = std::from_chars(p, end, f);
    if (ec != std::errc() || f < 0) return std::nullopt;
    p = next;
  }
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n')) ++p;
  if (p != end) return std::nullopt;
  return Schedstat{fields[1], fields[2]};
}

SchedCounters read_this_thread_counters() {
  SchedCounters c;
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) == 0) c.involuntary_switches = u.ru_nivcsw;
  // open/read rather than a stream: this runs on every worker around every sample.
  const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[128];
    const ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n > 0)
      if (const auto st = parse_schedstat(std::string_view(buf, std::size_t(n)))) {
        c.run_delay_ns = st->run_delay_ns;
        c.scheduled_in = st->scheduled_in;
      }
  }
  return c;
}

std::int64_t lost_ns(const SchedCounters& before, const SchedCounters& after) {
  if (before.run_delay_ns < 0 || after.run_delay_ns < 0) return -1;
  const std::int64_t waits = after.run_delay_ns - before.run_delay_ns;
  const std::int64_t wakes = std::max<std::int64_t>(0, after.scheduled_in - before.scheduled_in);
  return std::max<std::int64_t>(0, waits - kWakeAllowanceNs * wakes);
}

bool is_disturbed(const ContentionReading& r, double wall_s) {
  if (r.threads_read == 0) return false;
  if (r.max_lost_ns >= 0) {
    const double limit = std::max(double(kDisturbedFloorNs), kDisturbedFraction * wall_s * 1e9);
    return double(r.max_lost_ns) > limit;
  }
  return r.involuntary_switches > 0;
}

TeamProbe::TeamProbe(int threads)
    : threads_(std::max(1, threads)),
      before_(std::size_t(threads_)),
      after_(std::size_t(threads_)) {}

void TeamProbe::read_team(std::vector<Slot>& into) {
  std::fill(into.begin(), into.end(), Slot{});
#pragma omp parallel num_threads(threads_)
  {
    const int i = omp_get_thread_num();
    if (i < threads_) into[std::size_t(i)] = {long(gettid()), read_this_thread_counters()};
  }
}

void TeamProbe::before() {
  read_team(before_);
}

ContentionReading TeamProbe::after() {
  read_team(after_);
  ContentionReading r;
  std::int64_t switches = 0, worst = 0;
  bool switches_known = true, delay_known = true;
  for (const Slot& a : after_) {
    const auto b = std::find_if(before_.begin(), before_.end(),
                                [&](const Slot& s) { return s.tid != 0 && s.tid == a.tid; });
    if (a.tid == 0 || b == before_.end()) continue;
    ++r.threads_read;
    if (a.counters.involuntary_switches < 0 || b->counters.involuntary_switches < 0)
      switches_known = false;
    else
      switches += a.counters.involuntary_switches - b->counters.involuntary_switches;
    const std::int64_t lost = lost_ns(b->counters, a.counters);
    if (lost < 0)
      delay_known = false;
    else
      worst = std::max(worst, lost);
  }
  if (r.threads_read > 0 && switches_known) r.involuntary_switches = switches;
  if (r.threads_read > 0 && delay_known) r.max_lost_ns = worst;
  return r;
}

}  // namespace readbench::cpu
