#pragma once
// Whether a run's numbers describe the read or the machine's other work: the evidence a
// sweep gathers (disturbed samples, ceilings before and after, the load) and the verdict.
#include <optional>
#include <string>
#include <vector>

namespace readbench {

// The ceilings before and after the sweep may differ by this much (best of each) before the run
// is called contended. On the development machine (a 2-vCPU VM whose host memory bandwidth moves
// with its neighbours) 21 quiet default runs moved by 0-24%, while a build beside the sweep
// lowered the ceiling by half (27 to 13.4 GB/s): 30% lies between the two.
constexpr double kCeilingMoveTolerance = 0.30;
// Ceiling measurements before the sweep and after it; the best of all is the ceiling.
constexpr int kCeilingRoundsBefore = 2;
constexpr int kCeilingRoundsAfter = 2;

// /proc/loadavg: load averages and the runnable tasks when it was read.
struct LoadSample {
  double one_minute = 0, five_minutes = 0;
  int runnable = 0;  // tasks running or runnable, this process's included
};
// Empty where /proc/loadavg cannot be read.
std::optional<LoadSample> read_load();
// Parses the text of /proc/loadavg ("0.52 0.58 0.59 2/389 12345"); empty when malformed.
std::optional<LoadSample> parse_loadavg(const std::string& text);

// A run's verdict: clean, or contended with the reasons.
struct Quality {
  bool contended = false;
  std::vector<std::string> reasons;
  std::optional<LoadSample> load_before, load_after;
};

}  // namespace readbench
