#pragma once
// The words a report is written in, shared by the code that writes reports and the code that
// reads them back: each is an enum here, spelled once in its table (enum_names.hpp).
#include <string_view>

#include "core/enum_names.hpp"

namespace readbench {

// A backend/path result: timed, not present on this machine, or failed (a check, memory).
enum class Status { ok, unavailable, failed };
inline constexpr Named<Status> kStatusNames[] = {
    {Status::ok, "ok"}, {Status::unavailable, "unavailable"}, {Status::failed, "failed"}};

// Which per-call time the fit, GB/s and speedups use.
enum class Statistic { min, median };
inline constexpr Named<Statistic> kStatisticNames[] = {{Statistic::min, "min"},
                                                       {Statistic::median, "median"}};

// Why a path's grid of lengths ended.
enum class GridStop {
  explicit_lengths,  // every length of an explicit --lengths list was timed
  reached,           // auto: the asymptote was reached
  max_length,        // auto: the next length was past --max-length
  sweep_budget,      // auto: the next length would not fit in --sweep-budget
  memory,            // auto: the next length needs more than its share of the memory
  contended,         // auto: a point kept disturbed samples: the machine is busy
  not_timed,         // the path was never timed (failed, unavailable)
  interrupted,       // a signal stopped the run before the grid ended
};
inline constexpr Named<GridStop> kGridStopNames[] = {{GridStop::explicit_lengths, "explicit"},
                                                     {GridStop::reached, "reached"},
                                                     {GridStop::max_length, "max_length"},
                                                     {GridStop::sweep_budget, "sweep_budget"},
                                                     {GridStop::memory, "memory"},
                                                     {GridStop::contended, "contended"},
                                                     {GridStop::not_timed, "not_timed"},
                                                     {GridStop::interrupted, "interrupted"}};

// Whether a run's numbers describe the read (clean) or also the machine's other work.
enum class QualityVerdict { clean, contended };
inline constexpr Named<QualityVerdict> kQualityVerdictNames[] = {
    {QualityVerdict::clean, "clean"}, {QualityVerdict::contended, "contended"}};

constexpr std::string_view to_string(Status s) {
  return name_in(kStatusNames, s);
}
constexpr std::string_view to_string(Statistic s) {
  return name_in(kStatisticNames, s);
}
constexpr std::string_view to_string(GridStop s) {
  return name_in(kGridStopNames, s);
}
constexpr std::string_view to_string(QualityVerdict v) {
  return name_in(kQualityVerdictNames, v);
}

Statistic parse_statistic(std::string_view s);  // throws InputError listing the words

}  // namespace readbench
