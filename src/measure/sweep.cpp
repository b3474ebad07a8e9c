#include "measure/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include <omp.h>

#include "backends/registry.hpp"
#include "core/elapsed.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/strprintf.hpp"
#include "measure/backend_opening.hpp"
#include "measure/run_memory.hpp"
#include "measure/verify.hpp"

namespace readbench {

namespace {

// K and V pool bytes one replica of `w` takes: whole blocks, padding included.
std::int64_t pool_bytes_per_replica(Workload w) {
  w.replicas = 1;
  return 2 * w.pool_elements() * std::int64_t(element_size(w.kv_dtype()));
}

}  // namespace

int max_replicas(const Workload& w) {
  constexpr double kPoolBudget = 8.0 * (1ll << 30);
  const auto per_replica = std::max<std::int64_t>(pool_bytes_per_replica(w), 1);
  return int(std::clamp(std::floor(kPoolBudget / double(per_replica)), 1.0, 256.0));
}

int cold_replicas(const Workload& w, std::int64_t cache_bytes, double resolution_s,
                  double read_gbps) {
  return std::min(replicas_for(w.kv_bytes_per_call(), cache_bytes, resolution_s, read_gbps),
                  max_replicas(w));
}

namespace {

using Clock = std::chrono::steady_clock;

Bandwidths best_of(const std::vector<Bandwidths>& runs) {
  Bandwidths best;
  for (const Bandwidths& b : runs) {
    best.read_gbps = std::max(best.read_gbps, b.read_gbps);
    best.copy_gbps = std::max(best.copy_gbps, b.copy_gbps);
    best.buffer_bytes = b.buffer_bytes;
  }
  return best;
}

// The paths a backend named `backend` ("cpu", "cuda", "cuda:1") runs: the built-in ones asked
// for, and the plugins asked for that run on its kind.
std::vector<Path> paths_on(const SweepConfig& c, const std::string& backend) {
  const BackendKind* kind = find_backend_kind(backend);
  std::vector<Path> out;
  for (const Path& p : c.paths) {
    if (!p.is_plugin()) {
      out.push_back(p);
      continue;
    }
    for (const auto& plugin : c.plugins)
      if (plugin->name() == p.plugin && kind != nullptr && plugin->backend() == kind->name)
        out.push_back(p);
  }
  return out;
}

// The run's verdict from what its backends saw: points that had to keep disturbed samples, and
// read ceilings that moved between before and after the sweep.
Quality judge_quality(const RunResult& run) {
  Quality q = run.quality;
  for (const BackendResult& b : run.backends) {
    if (b.status != Status::ok || b.ceilings_before.empty() || b.ceilings_after.empty()) continue;
    const double before = best_of(b.ceilings_before).read_gbps;
    const double after = best_of(b.ceilings_after).read_gbps;
    if (std::abs(after - before) > kCeilingMoveTolerance * std::max(before, after))
      q.reasons.push_back(b.name + " read ceiling moved from " + three_digits(before) +
                          " GB/s before the sweep to " + three_digits(after) + " GB/s after it");
    for (const std::string& seen : b.device_conditions) q.reasons.push_back(b.name + ": " + seen);
  }
  for (const PathResult& r : run.results) {
    int contended = 0, points = 0;
    for (const PointResult& p : r.points) {
      ++points;
      contended += p.measurement.contended ? 1 : 0;
    }
    if (contended > 0)
      q.reasons.push_back(r.backend + "/" + std::string(to_string(r.path)) + ": " +
                          std::to_string(contended) + " of " + std::to_string(points) +
                          " points kept samples whose threads lost their cores (the budget "
                          "ran out before clean ones replaced them)");
  }
  q.contended = !q.reasons.empty();
  return q;
}

// K and V bytes a call reads per token of history.
double kv_bytes_per_token(const SweepConfig& c) {
  return double(c.workload(1).kv_bytes_per_call());
}

ReadFitOptions fit_options(const SweepConfig& c, const BackendResult& info) {
  return {c.fit_from, kv_bytes_per_token(c), info.bandwidths.read_gbps};
}

std::vector<TimedPoint> timed_points(const PathResult& r) {
  std::vector<TimedPoint> pts;
  for (const auto& p : r.points) pts.push_back({double(p.length), p.seconds});
  return pts;
}

// Whether a path's points so far reach the asymptote (asymptote_fit.hpp).
bool reached(const PathResult& r, const SweepConfig& c, const BackendResult& info) {
  try {
    return fit_read(timed_points(r), fit_options(c, info)).asymptote_reached;
  } catch (const FitError&) {
    return false;  // too few points yet
  }
}

std::string bytes_text(double bytes) {
  return three_digits(bytes / double(1ll << 30)) + " GiB";
}

// The auto grid's bounds, checked before a length is prepared: nothing is allocated past them.
struct GridBounds {
  const SweepConfig& c;
  Clock::time_point backend_start;
  double host_available = 0, backend_available = 0;  // bytes, when the backend opened

  // Why `len` may not start, or empty.
  std::optional<std::pair<GridStop, std::string>> stop_before(const Backend& backend,
                                                              const Workload& w,
                                                              double last_length_s) const {
    const std::string at = "L=" + std::to_string(w.length);
    if (w.length > c.max_length)
      return std::pair{GridStop::max_length,
                       at + " is past --max-length " + std::to_string(c.max_length)};
    const double spent = seconds_since(backend_start);
    // Time grows at most linearly with the length: a x4 step takes at most 4x the last.
    const double next = kAutoLengthFactor * last_length_s;
    if (spent + next > c.sweep_budget_s)
      return std::pair{GridStop::sweep_budget,
                       // Before the first length there is no estimate, only what the ceilings took.
                       last_length_s > 0
                           ? at + " would take about " + three_digits(next) + " s more after " +
                                 three_digits(spent) + " s, past --sweep-budget " +
                                 three_digits(c.sweep_budget_s) + " s"
                           : at + " was not started: " + three_digits(spent) +
                                 " s were spent before the first length, past --sweep-budget " +
                                 three_digits(c.sweep_budget_s) + " s"};
    return memory_stop(backend, w);
  }

  // Why a workload would take more than its share of the memory, or empty.
  std::optional<std::pair<GridStop, std::string>> memory_stop(const Backend& backend,
                                                              const Workload& w) const {
    const std::string at = "L=" + std::to_string(w.length);
    const double host = double(step_peak(c, backend.name(), w).bytes);
    if (host > double(host_memory_limit(std::int64_t(host_available))))
      return std::pair{GridStop::memory, at + " would take " + bytes_text(host) +
                                             " of host memory at its peak, more than four "
                                             "fifths of the " +
                                             bytes_text(host_available) + " available"};
    const double own = double(backend.workload_bytes(w));
    if (own > kAutoMemoryShare * backend_available)
      return std::pair{GridStop::memory, at + " needs " + bytes_text(own) + " of " +
                                             std::string(backend.name()) +
                                             " memory, more than half of the " +
                                             bytes_text(backend_available) + " available"};
    return std::nullopt;
  }
};

// A point's time from its samples, and the figures that follow from it.
void set_time(PointResult& p, const SweepConfig& c, const BackendResult& info) {
  const SampleSummary& s = p.measurement.per_call;
  p.seconds = c.statistic == Statistic::min ? s.min : s.median;
  p.gbps = double(p.bytes.total()) / p.seconds / 1e9;
  p.ceiling_fraction = p.gbps / info.bandwidths.read_gbps;
}

// A path whose call failed is untimed (its earlier points go: what it measured before is not a
// read that works), and the failed call counts as a failed check.
void fail_path(PathResult& r, const Workload& w, const std::string& why) {
  r.checks.push_back(failed_check(w, r.path, why));
  r.points.clear();
  r.status = Status::failed;
  r.reason = "its call failed at L=" + std::to_string(w.length) + ": " + why;
}

void time_point(Backend& backend, const SweepConfig& c, const BackendResult& info, Workload& tw,
                PathResult& r, const std::function<bool(const Workload&)>& fits) {
  Measurement m = measure_point(backend, r.path, c.sampling);
  // Cold batches must read a replica no earlier call of the sample touched: when the
  // batch outgrew the replicas, build a quarter more than it (the repeated estimate can
  // come out a call longer) and measure again. A sample of one call needs no replica.
  if (c.sampling.cache == CacheState::cold && m.calls_per_sample > tw.replicas &&
      tw.replicas < max_replicas(tw)) {
    Workload more = tw;
    more.replicas = std::min(m.calls_per_sample + (m.calls_per_sample + 3) / 4, max_replicas(tw));
    if (fits(more)) {
      tw = more;
      backend.release();  // built in the old one's place
      backend.prepare(make_host_workload(tw));
      m = measure_point(backend, r.path, c.sampling);
    }
  }
  PointResult pt;
  pt.length = tw.length;
  pt.replicas = tw.replicas;
  pt.measurement = m;
  pt.bytes = bytes_per_call(tw, r.path);
  set_time(pt, c, info);
  r.points.push_back(pt);
}

void fit_paths(const SweepConfig& c, const BackendResult& info, std::vector<PathResult>& mine) {
  for (PathResult& r : mine) {
    if (r.status != Status::ok) continue;
    try {
      r.fit = fit_read(timed_points(r), fit_options(c, info));
    } catch (const FitError& e) {
      r.fit_error = e.what();
    }
  }
}

// A signal stopped the backend: its paths keep their points, the grids still going say so, and
// what has enough points is fitted. Stopped before its paths were listed (in the ceilings), each
// path is listed untimed.
// The best of every ceiling measured so far is the backend's ceiling, and every point's
// fraction is of it.
void settle_ceilings(BackendResult& info, std::vector<PathResult>& mine) {
  std::vector<Bandwidths> all = info.ceilings_before;
  all.insert(all.end(), info.ceilings_between.begin(), info.ceilings_between.end());
  all.insert(all.end(), info.ceilings_after.begin(), info.ceilings_after.end());
  if (all.empty()) return;  // stopped before the first
  info.bandwidths = best_of(all);
  for (PathResult& r : mine)
    for (PointResult& p : r.points) p.ceiling_fraction = p.gbps / info.bandwidths.read_gbps;
}

void stop_backend(const SweepConfig& c, BackendResult& info, std::vector<PathResult>& mine) {
  settle_ceilings(info, mine);
  if (mine.empty())
    for (const Path& p : paths_on(c, info.name)) {
      PathResult r;
      r.backend = info.name;
      r.path = p;
      mine.push_back(r);
    }
  for (PathResult& r : mine)
    if (r.status == Status::ok && r.grid_stop == GridStop::not_timed)
      r.grid_stop = GridStop::interrupted;
  fit_paths(c, info, mine);
}

// One length of the grid as the first round left it: its workload and the points timed on it.
struct GridStep {
  Workload workload;
  double prepare_s = 0;                                     // building and uploading it, once
  std::vector<std::pair<PathResult*, std::size_t>> points;  // path, index of its point
};

// A later round's time at one point: the first round's sampling time shared among the later
// rounds, so all rounds together sample about twice as long as the first alone.
double slice_s(const Measurement& m, const SweepConfig& c, int rounds) {
  return std::max(c.sampling.min_time_s, m.first_round_s / double(rounds - 1));
}

// The later rounds: every point sampled again, the grid walked longest first, then shortest
// first, and so on (the workload a round ends on needs no new prepare), and the read ceiling
// measured after each round. The machine's drift during the run then falls on every length,
// not on whichever was timed while it lasted. An auto grid starts no round that would end past
// --sweep-budget.
void sample_rounds(Backend& backend, const SweepConfig& c, BackendResult& info,
                   std::span<GridStep> steps, Clock::time_point backend_start,
                   const std::function<void(const std::string&)>& say) {
  if (steps.empty()) return;
  const int rounds = c.rounds_on(info.name);
  // A contended run stays contended whatever later rounds find: they would only take longer.
  for (const GridStep& s : steps)
    for (const auto& [r, i] : s.points)
      if (r->status == Status::ok && r->points[i].measurement.contended) {
        if (rounds > 1) say("later sampling rounds not taken: points kept disturbed samples");
        return;
      }
  // The backend holds the last step's workload (the grid prepares nothing after it).
  std::size_t prepared = steps.size() - 1;
  for (int round = 2; round <= rounds; ++round) {
    for (GridStep& s : steps)  // a path whose call failed is timed no more
      std::erase_if(s.points, [](const auto& pt) { return pt.first->status != Status::ok; });
    double round_s = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      if (k != prepared && !steps[k].points.empty()) round_s += steps[k].prepare_s;
      for (const auto& [r, i] : steps[k].points)
        round_s += slice_s(r->points[i].measurement, c, rounds);
    }
    if (c.auto_lengths && seconds_since(backend_start) + round_s > c.sweep_budget_s) {
      say("sampling round " + std::to_string(round) + " would end past --sweep-budget: not taken");
      break;
    }
    say("sampling round " + std::to_string(round) + " of " + std::to_string(rounds));
    const bool longest_first = round % 2 == 0;
    for (std::size_t n = 0; n < steps.size(); ++n) {
      const std::size_t k = longest_first ? steps.size() - 1 - n : n;
      GridStep& s = steps[k];
      if (s.points.empty()) continue;
      throw_if_interrupted();
      const bool fresh = k != prepared;
      if (fresh) {
        backend.release();
        backend.prepare(make_host_workload(s.workload));
        prepared = k;
      }
      for (const auto& [r, i] : s.points) {
        if (r->status != Status::ok) continue;  // its call failed at this length just now
        PointResult& p = r->points[i];
        try {
          // A new workload's first calls pay its page faults, as in the first round's warm-up.
          if (fresh) warm_up(backend, r->path, c.sampling);
          sample_again(backend, r->path, c.sampling, slice_s(p.measurement, c, rounds),
                       p.measurement);
        } catch (const PluginFailure& e) {
          fail_path(*r, s.workload, e.what());
          continue;
        }
        set_time(p, c, info);
      }
    }
    info.ceilings_between.push_back(backend.measure_bandwidths());
  }
}

using Say = std::function<void(const std::string&)>;

// The paths a backend times, listed as the sweep starts them: ok, or failed where a plugin's
// check ran in a child process and never came back.
void list_paths(const SweepConfig& c, const std::string& name, const std::vector<Path>& paths,
                std::vector<PathResult>& mine) {
  for (const Path& p : paths) {
    PathResult r;
    r.backend = name;
    r.path = p;
    if (p.is_plugin()) {
      if (const auto it = c.plugins_not_called.find(p.plugin); it != c.plugins_not_called.end()) {
        // Its check ran in a child process and never came back: a failed check.
        const Workload w = c.workload(verification_lengths(c).front());
        r.checks.push_back(failed_check(w, p, it->second));
        r.status = Status::failed;
        r.reason = it->second;
      }
    }
    mine.push_back(r);
  }
}

// The plugins of the backend's paths whose checks came back, handed to the backend.
void add_plugins(Backend& backend, const SweepConfig& c, const std::vector<Path>& paths) {
  for (const auto& plugin : c.plugins)
    if (std::find(paths.begin(), paths.end(), Path::of_plugin(plugin->name())) != paths.end() &&
        !c.plugins_not_called.contains(plugin->name()))
      backend.add_plugin(plugin);
}

// Each ok path checked at each verification length; a path that fails a check is failed, with
// why, and not called again.
void verify_paths(Backend& backend, const SweepConfig& c, const GridBounds& bounds,
                  std::vector<PathResult>& mine, const Say& say) {
  Workload w = c.workload(0);
  w.seed ^= 0x5eedc0de;  // fresh inputs for the checks
  for (std::int64_t len : verification_lengths(c)) {
    throw_if_interrupted();
    w.length = len;
    // An auto grid's checks stay within the memory bound its lengths keep to.
    while (c.auto_lengths && w.length > c.shape.block_size + 1 && bounds.memory_stop(backend, w))
      w.length = (w.length / 2) | 1;
    say("verifying at L=" + std::to_string(w.length));
    std::vector<Path> to_check;  // a path already failed is not called again
    for (const PathResult& r : mine)
      if (r.status == Status::ok) to_check.push_back(r.path);
    if (to_check.empty()) break;
    for (const CheckResult& check : check_paths(backend, w, to_check)) {
      PathResult& r = *std::find_if(mine.begin(), mine.end(),
                                    [&](const PathResult& m) { return m.path == check.path; });
      r.checks.push_back(check);
      if (check.passed) continue;
      r.status = Status::failed;
      r.reason = !check.failure.empty()
                     ? "its call failed at L=" + std::to_string(w.length) + ": " + check.failure
                     : "verification failed at L=" + std::to_string(w.length) + ": error " +
                           three_digits(check.error) + " > tolerance " +
                           three_digits(check.tolerance);
    }
  }
}

// One backend's grid of lengths as it is timed: the first round grows it (or walks the explicit
// lengths) while paths are active, the later rounds sample its lengths again, and an auto grid
// grows on for a path those rounds take off its asymptote.
struct Grid {
  Backend& backend;
  const SweepConfig& c;
  BackendResult& info;
  const GridBounds& bounds;
  const Say& say;
  std::vector<PathResult>& mine;
  std::vector<PathResult*> active;  // paths whose grid goes on
  std::vector<GridStep> steps;      // what the later rounds sample again
  std::size_t step = 0;             // the next length's index
  double last_length_s = 0;

  Grid(Backend& backend, const SweepConfig& c, BackendResult& info, const GridBounds& bounds,
       const Say& say, std::vector<PathResult>& mine)
      : backend(backend), c(c), info(info), bounds(bounds), say(say), mine(mine) {}

  void sweep() {
    for (PathResult& r : mine)
      if (r.status == Status::ok) active.push_back(&r);
    grow();
    sample_rounds(backend, c, info, std::span(steps), bounds.backend_start, say);
    grow_unreached();
  }

  // An explicit grid's lengths fit this machine on one replica (validate); a cold one adds
  // replicas while they fit.
  bool fits_bounds(const Workload& tw) const {
    if (c.auto_lengths) return !bounds.memory_stop(backend, tw);
    return step_peak(c, info.name, tw).bytes <= host_memory_limit(physical_memory_bytes());
  }

  // The first round: the grid grows (or walks the explicit lengths) while paths are active.
  void grow() {
    for (; !active.empty(); ++step) {
      if (!c.auto_lengths && step == c.lengths.size()) {
        for (PathResult* r : active) r->grid_stop = GridStop::explicit_lengths;
        break;
      }
      throw_if_interrupted();
      const std::int64_t len = length_at(step);
      std::vector<PathResult*> due = due_at(step);
      if (due.empty()) continue;
      const Workload tw = workload_at(len);
      if (c.auto_lengths && stopped_before(tw)) break;
      time_length(len, tw, due);
      if (c.auto_lengths)
        std::erase_if(active, [&](PathResult* r) { return ends_at(len, due, *r); });
    }
  }

  std::int64_t length_at(std::size_t k) const {
    std::int64_t len = c.auto_lengths ? kAutoFirstLength : c.lengths[k];
    for (std::size_t i = 0; c.auto_lengths && i < k; ++i) len *= kAutoLengthFactor;
    return len;
  }

  // The active paths without the length of index `k`: all of them, except after a grid
  // reopened (grow_unreached), where a path rejoins at its own next length.
  std::vector<PathResult*> due_at(std::size_t k) const {
    std::vector<PathResult*> due;
    for (PathResult* r : active)
      if (!c.auto_lengths || r->points.size() == k) due.push_back(r);
    return due;
  }

  // The workload of a length, with the replicas a cold cache needs, halved while they do not fit.
  Workload workload_at(std::int64_t len) const {
    Workload tw = c.workload(len);
    tw.replicas = c.sampling.cache == CacheState::hot
                      ? 1
                      : cold_replicas(tw, backend.cache_bytes(), backend.timer_resolution_s(),
                                      info.bandwidths.read_gbps);
    while (tw.replicas > 1 && !fits_bounds(tw)) tw.replicas = (tw.replicas + 1) / 2;
    return tw;
  }

  // Whether an auto grid's bound stops it before `tw`: every active path's grid then ends, and
  // is not grown (nor the bound judged again) after the rounds.
  bool stopped_before(const Workload& tw) {
    const auto stop = bounds.stop_before(backend, tw, last_length_s);
    if (!stop) return false;
    for (PathResult* r : active) {
      r->grid_stop = stop->first;
      r->grid_reason = stop->second;
    }
    active.clear();
    return true;
  }

  // The due paths timed at one length, on its workload built in the last one's place; a path
  // whose call fails leaves the grid. The length becomes a step the later rounds sample again.
  void time_length(std::int64_t len, Workload tw, std::vector<PathResult*>& due) {
    const auto length_start = Clock::now();
    backend.release();  // the next length is built in its place
    backend.prepare(make_host_workload(tw));
    GridStep grid_step{tw, seconds_since(length_start), {}};
    for (PathResult* r : due) {
      throw_if_interrupted();
      say("timing " + std::string(to_string(r->path)) + " at L=" + std::to_string(len));
      try {
        time_point(backend, c, info, tw, *r, [this](const Workload& w) { return fits_bounds(w); });
      } catch (const PluginFailure& e) {
        fail_path(*r, tw, e.what());
      }
    }
    std::erase_if(active, [](PathResult* r) { return r->status != Status::ok; });
    std::erase_if(due, [](PathResult* r) { return r->status != Status::ok; });
    last_length_s = seconds_since(length_start);
    grid_step.workload = tw;  // with the replicas a cold batch may have added
    for (PathResult* r : due) grid_step.points.push_back({r, r->points.size() - 1});
    steps.push_back(std::move(grid_step));
  }

  // Whether an auto grid ends for `r` after the length `len`, and why: its point there kept
  // disturbed samples, or its points reach the asymptote. A path not timed now goes on.
  bool ends_at(std::int64_t len, const std::vector<PathResult*>& due, PathResult& r) const {
    if (std::find(due.begin(), due.end(), &r) == due.end()) return false;  // not timed now
    if (r.points.back().measurement.contended) {
      // The run is contended already; a longer length would only take longer.
      r.grid_stop = GridStop::contended;
      r.grid_reason = "L=" + std::to_string(len) +
                      " kept samples whose threads lost their cores: the machine is busy";
      return true;
    }
    if (!reached(r, c, info)) return false;
    r.grid_stop = GridStop::reached;
    return true;
  }

  // A path judged at its asymptote on its first-round points may not be once every round is
  // in (a length timed while the machine was slow looked like the read's own curve): its grid
  // grows on from where it stopped, and the new lengths get their rounds.
  void grow_unreached() {
    while (c.auto_lengths) {
      for (PathResult& r : mine)
        if (r.status == Status::ok && r.grid_stop == GridStop::reached && !reached(r, c, info)) {
          r.grid_stop = GridStop::not_timed;
          active.push_back(&r);
        }
      if (active.empty()) break;
      // An auto grid's points are its first lengths: a path goes on at the length after its
      // last.
      step = std::numeric_limits<std::size_t>::max();
      for (const PathResult* r : active) step = std::min(step, r->points.size());
      const std::size_t first_new = steps.size();
      grow();
      if (steps.size() == first_new) break;  // a bound stopped it at once
      sample_rounds(backend, c, info, std::span(steps).subspan(first_new), bounds.backend_start,
                    say);
    }
  }
};

// `sharing`: backends swept at the same time, which split the host memory an auto grid may take.
void run_backend(Backend& backend, const SweepConfig& c, BackendResult& info,
                 std::vector<PathResult>& mine, const Progress& progress, int sharing) {
  const auto backend_start = Clock::now();
  const std::string name = info.name;  // "cuda:N" for one of several devices
  const Say say = [&](const std::string& s) {
    if (progress) progress(name + ": " + s);
  };
  say("measuring memory ceilings");
  for (int i = 0; i < kCeilingRoundsBefore; ++i)
    info.ceilings_before.push_back(backend.measure_bandwidths());
  info.bandwidths = best_of(info.ceilings_before);
  const GridBounds bounds{c, backend_start, double(host_memory_available_bytes()) / sharing,
                          double(backend.memory_available_bytes())};
  const std::vector<Path> paths = paths_on(c, name);
  list_paths(c, name, paths, mine);
  add_plugins(backend, c, paths);
  verify_paths(backend, c, bounds, mine, say);
  Grid(backend, c, info, bounds, say, mine).sweep();

  // The ceilings again after the sweep: a machine that got busier or quieter meanwhile shows
  // here, and the best of all measurements is the ceiling every fraction is judged against.
  say("measuring memory ceilings again");
  for (int i = 0; i < kCeilingRoundsAfter; ++i)
    info.ceilings_after.push_back(backend.measure_bandwidths());
  settle_ceilings(info, mine);
  for (PathResult& r : mine) r.note = backend.path_note(r.path);

  fit_paths(c, info, mine);
}

}  // namespace

int replicas_for(std::int64_t bytes_per_call, std::int64_t cache_bytes, double resolution_s,
                 double read_gbps) {
  if (bytes_per_call <= 0) return 1;
  // Enough replicas that cycling through them evicts each before its reuse...
  const double evict = std::ceil(3.0 * double(cache_bytes) / double(bytes_per_call));
  // ...or, if fewer, twice the batch a sample would need were calls as fast as the ceiling.
  const double floor_s = double(bytes_per_call) / std::max(read_gbps, 1.0) / 1e9;
  const double batch = std::ceil(2.0 * 1000.0 * resolution_s / floor_s);
  return int(std::clamp(std::min(evict, batch), 1.0, 256.0));
}

void validate_plugins(const SweepConfig& c) {
  require_distinct_names(c.plugins);
  for (const Path& p : c.paths)
    if (p.is_plugin() && std::none_of(c.plugins.begin(), c.plugins.end(), [&](const auto& plugin) {
          return plugin->name() == p.plugin;
        }))
      throw InputError("--path " + to_string(p) + " names no plugin loaded with --plugin");
  for (const auto& plugin : c.plugins) {
    plugin->require_dtypes(c.dtype, c.workload(0).kv_dtype());
    const std::string kind(plugin->backend());
    if (c.backend != BackendChoice::auto_ && c.backend != BackendChoice::all &&
        to_string(c.backend) != kind)
      throw InputError("plugin " + plugin->name() + " (" + plugin->file() + ") runs on " + kind +
                       ", which --backend " + std::string(to_string(c.backend)) + " leaves out");
  }
}

void validate(const SweepConfig& c) {
  c.shape.validate();
  validate_dtypes(c.dtype, c.workload(0).kv_dtype());
  validate(c.sampling);
  if (c.paths.empty()) throw InputError("--path selects no path");
  validate_plugins(c);
  if (!c.auto_lengths && c.lengths.empty()) throw InputError("--lengths is empty");
  if (c.auto_lengths && c.max_length < kAutoFirstLength)
    throw InputError("--max-length must be at least " + std::to_string(kAutoFirstLength) +
                     " with --lengths auto, got " + std::to_string(c.max_length));
  if (!std::isfinite(c.sweep_budget_s) || c.sweep_budget_s <= 0)
    throw InputError("--sweep-budget must be a finite number of seconds > 0, got " +
                     three_digits(c.sweep_budget_s));
  if (c.rounds && (*c.rounds < 1 || *c.rounds > kMaxRounds))
    throw InputError("--rounds must be auto or between 1 and " + std::to_string(kMaxRounds) +
                     ", got " + std::to_string(*c.rounds));
  validate_backend_options(c.threads, 0);
  for (int d : c.devices) validate_backend_options(c.threads, d);
  if (!std::is_sorted(c.devices.begin(), c.devices.end()) ||
      std::adjacent_find(c.devices.begin(), c.devices.end()) != c.devices.end())
    throw InputError("the CUDA devices must be listed once each, in increasing order");
  if (c.fit_from) check_fit_from(*c.fit_from);
  // A block past the longest history is padding that every sequence carries whole: a block of
  // 2^20 tokens at L = 16 takes 65,536 times the memory the read needs.
  const std::int64_t longest = c.auto_lengths ? c.max_length : c.lengths.back();
  if (c.shape.block_size > longest)
    throw InputError("--block-size " + std::to_string(c.shape.block_size) +
                     " is longer than the longest length, " + std::to_string(longest) +
                     ": each sequence would be one block of mostly padding");
  // A run this machine cannot hold is bad input under every --backend, refused before anything
  // is measured: its explicit lengths with the checks' (verify.cpp), on one replica. An auto
  // grid stops before its memory bound instead.
  const std::int64_t checked =
      std::max(c.auto_lengths ? kAutoFirstLength : longest, std::int64_t(c.shape.block_size) + 1);
  // The model's products stay within 64 bits below 2^60 bytes of K/V; past them the workload's
  // own check, in floating point, names the figure.
  const Workload w = c.workload(checked);
  if (w.length <= (1ll << 40) &&
      2.0L * w.shape.batch * (w.length + w.shape.block_size) * w.shape.kv_heads * w.shape.head_dim <
          0x1p60L)
    require_host_memory(run_peak(c, c.auto_lengths ? kAutoFirstLength : longest),
                        physical_memory_bytes());
  check_host_memory(w);
}

namespace {

// The sweep under way, for sweep_so_far: its result so far and, per thread sweeping backends,
// what those backends added so far (and the one being timed: its facts and results so far).
// Each thread writes only its own entry's referents.
struct LiveSweep {
  std::mutex lock;
  const RunResult* run = nullptr;
  struct Backend {
    std::thread::id thread;
    const RunResult* part = nullptr;
    const BackendResult* info = nullptr;            // while a backend is timed
    const std::vector<PathResult>* mine = nullptr;  // likewise
  };
  std::vector<Backend> backends;
};
LiveSweep g_live;

// Registers this thread's backends with g_live while it lives.
class LiveBackends {
 public:
  explicit LiveBackends(const RunResult& part) {
    const std::lock_guard hold(g_live.lock);
    g_live.backends.push_back({std::this_thread::get_id(), &part});
  }
  ~LiveBackends() {
    const std::lock_guard hold(g_live.lock);
    std::erase_if(g_live.backends, [](const LiveSweep::Backend& b) {
      return b.thread == std::this_thread::get_id();
    });
  }
  LiveBackends(const LiveBackends&) = delete;
  LiveBackends& operator=(const LiveBackends&) = delete;
};

// Marks the backend this thread times, its facts and results so far, while it lives.
class LiveTiming {
 public:
  LiveTiming(const BackendResult& info, const std::vector<PathResult>& mine) { set(&info, &mine); }
  ~LiveTiming() { set(nullptr, nullptr); }
  LiveTiming(const LiveTiming&) = delete;
  LiveTiming& operator=(const LiveTiming&) = delete;

 private:
  static void set(const BackendResult* info, const std::vector<PathResult>* mine) {
    const std::lock_guard hold(g_live.lock);
    for (LiveSweep::Backend& b : g_live.backends)
      if (b.thread == std::this_thread::get_id()) {
        b.info = info;
        b.mine = mine;
      }
  }
};

// What one backend (or one that could not run) adds to a run; `part` collects it.
struct BackendRun {
  const SweepConfig& c;
  const Progress& progress;
  int sharing = 1;
  RunResult part;
  BackendResult info;

  // Every path of a backend that cannot run, or fails midway, carries the reason; under an
  // explicit --backend that is an InputError instead (backend_opening.hpp). One that failed
  // midway keeps the facts and ceilings it had measured.
  void skipped(const std::string& name, Status status, const std::string& why) {
    if (info.name != name) info = BackendResult{};
    info.name = name;
    info.status = status;
    info.reason = why;
    for (const Path& p : paths_on(c, name)) {
      PathResult r;
      r.backend = name;
      r.path = p;
      r.status = status;
      r.reason = why;
      part.results.push_back(r);
    }
    part.backends.push_back(info);
  }

  bool measure(const std::string& name, Backend& backend) {
    info = BackendResult{};
    info.name = name;
    info.timer_resolution_s = backend.timer_resolution_s();
    info.cache_bytes = backend.cache_bytes();
    info.gpu = backend.gpu_info();
    info.details = backend.details();
    std::vector<PathResult> mine;
    const LiveTiming live(info, mine);
    try {
      run_backend(backend, c, info, mine, progress, sharing);
      info.device_conditions = backend.device_conditions();
    } catch (const Interrupted& e) {
      part.signal = e.signal();
      stop_backend(c, info, mine);
    }
    for (auto& r : mine) part.results.push_back(std::move(r));
    part.backends.push_back(info);
    return part.complete();  // after a signal no further backend starts
  }

  void run(const std::vector<std::string>& names, const BackendFactory& open) {
    const LiveBackends live(part);
    for_each_backend(
        c.backend, names, open,
        [this](const std::string& name, Backend& b) { return measure(name, b); },
        [this](const std::string& name, Status st, const std::string& why) {
          skipped(name, st, why);
        });
  }
};

void append(RunResult& run, RunResult&& part) {
  for (auto& b : part.backends) run.backends.push_back(std::move(b));
  for (auto& r : part.results) run.results.push_back(std::move(r));
  if (part.signal != 0 && run.signal == 0) run.signal = part.signal;
}

// Several CUDA devices are independent: each is swept on its own thread, at the same time, and
// their results are kept in device order. An explicit --backend cuda whose device cannot run
// is an InputError after every thread has ended (the first such device's).
void sweep_devices(const SweepConfig& c, const std::vector<std::string>& names,
                   const BackendFactory& open, const Progress& progress, RunResult& run) {
  std::vector<BackendRun> runs;
  runs.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    runs.push_back(BackendRun{c, progress, int(names.size()), {}, {}});
  std::vector<std::exception_ptr> errors(names.size());
  std::vector<std::thread> threads;
  // A device's CPU work (filling its workload, the f64 reference) must not take the cores the
  // other devices' timing threads run on: each device thread's OpenMP regions get a share of
  // the cores that leaves one per device free.
  const int cores = omp_get_num_procs();
  const int per_device = std::max(1, (cores - int(names.size())) / int(names.size()));
  for (std::size_t i = 0; i < names.size(); ++i)
    threads.emplace_back([&, i] {
      omp_set_num_threads(per_device);
      try {
        runs[i].run({names[i]}, open);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (BackendRun& r : runs) append(run, std::move(r.part));
}

}  // namespace

std::vector<SlowDevice> slow_devices(const RunResult& run) {
  // Per path and length, the points of every CUDA device that timed it.
  std::map<std::pair<Path, std::int64_t>, std::vector<std::pair<std::string, const PointResult*>>>
      by_point;
  for (const PathResult& r : run.results)
    if (is_device_backend(r.backend) && r.status == Status::ok)
      for (const PointResult& p : r.points) by_point[{r.path, p.length}].push_back({r.backend, &p});
  std::vector<SlowDevice> out;
  for (const auto& [key, points] : by_point) {
    if (points.size() < 2) continue;
    const auto fastest = std::min_element(points.begin(), points.end(), [](auto& a, auto& b) {
      return a.second->seconds < b.second->seconds;
    });
    const SampleSummary& f = fastest->second->measurement.per_call;
    for (const auto& [name, p] : points) {
      if (p == fastest->second) continue;
      const SampleSummary& d = p->measurement.per_call;
      const double gap = p->seconds - fastest->second->seconds;
      const double spread = (d.median - d.min) + (f.median - f.min);
      const double ratio = p->seconds / fastest->second->seconds;
      if (gap > spread && ratio > 1.0 + kSlowDeviceMargin)
        out.push_back({name, fastest->first, key.first, key.second, ratio});
    }
  }
  return out;
}

namespace {

// The figures drawn from the whole result: speedups, slow devices, the run's quality.
void finish(RunResult& run) {
  // gather / fused per (backend, length) where both were timed.
  std::map<std::pair<std::string, std::int64_t>,
           std::pair<std::optional<double>, std::optional<double>>>
      times;
  std::map<std::pair<std::string, std::int64_t>, bool> clean;  // both points so far clean
  for (const PathResult& r : run.results)
    for (const PointResult& p : r.points) {
      if (r.path.is_plugin()) continue;
      auto& [g, f] = times[{r.backend, p.length}];
      (r.path == Path::gather ? g : f) = p.seconds;
      const bool steady = p.measurement.converged && !p.measurement.contended;
      const auto [it, fresh] = clean.emplace(std::pair{r.backend, p.length}, steady);
      if (!fresh) it->second = it->second && steady;
    }
  for (const auto& [key, t] : times)
    if (t.first && t.second)
      run.speedups.push_back({key.first, key.second, *t.first, *t.second,
                              speedup_of(*t.first, *t.second), clean[key]});
  run.slow_devices = slow_devices(run);
  run.quality.load_after = read_load();
  run.quality = judge_quality(run);
}

// Points g_live at a sweep while it lives.
class LiveRun {
 public:
  explicit LiveRun(const RunResult& run) {
    const std::lock_guard hold(g_live.lock);
    g_live.run = &run;
  }
  ~LiveRun() {
    const std::lock_guard hold(g_live.lock);
    g_live.run = nullptr;
    g_live.backends.clear();
  }
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;
};

}  // namespace

RunResult run_sweep(const SweepConfig& c, const Progress& progress, const BackendFactory& factory) {
  validate(c);
  const std::vector<int> devices = resolve_devices(c.devices);
  const BackendFactory open = factory ? factory : default_backend_factory(c.threads, devices);
  RunResult run;
  run.config = c;
  run.config.devices = devices;
  run.quality.load_before = read_load();
  // Progress lines come from the device threads too.
  std::mutex progress_lock;
  const Progress say = [&](std::string_view m) {
    if (!progress) return;
    const std::lock_guard lock(progress_lock);
    progress(m);
  };
  std::vector<std::string> one_at_a_time, concurrent;
  for (const std::string& name : backend_names(c.backend, devices))
    (is_device_backend(name) ? concurrent : one_at_a_time).push_back(name);
  const LiveRun live(run);
  BackendRun first{c, say, 1, {}, {}};
  first.run(one_at_a_time, open);
  append(run, std::move(first.part));
  if (!concurrent.empty() && run.complete()) sweep_devices(c, concurrent, open, say, run);
  finish(run);
  return run;
}

std::optional<RunResult> sweep_so_far() {
  const std::lock_guard hold(g_live.lock);
  if (g_live.run == nullptr) return std::nullopt;
  RunResult run = *g_live.run;
  // The calling thread's backends; an exit from a thread of the plugin's own (or an OpenMP
  // worker) has none, and takes the sweep's when only one thread sweeps.
  const auto here = std::find_if(
      g_live.backends.begin(), g_live.backends.end(),
      [](const LiveSweep::Backend& b) { return b.thread == std::this_thread::get_id(); });
  const LiveSweep::Backend* live = here != g_live.backends.end() ? &*here
                                   : g_live.backends.size() == 1 ? &g_live.backends.front()
                                                                 : nullptr;
  if (live != nullptr) {
    RunResult part = *live->part;
    if (live->info != nullptr && live->mine != nullptr) {
      BackendResult info = *live->info;
      std::vector<PathResult> mine = *live->mine;
      stop_backend(g_live.run->config, info, mine);
      for (auto& r : mine) part.results.push_back(std::move(r));
      part.backends.push_back(info);
    }
    append(run, std::move(part));
  }
  finish(run);
  return run;
}

}  // namespace readbench
