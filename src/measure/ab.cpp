#include "measure/ab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "core/elapsed.hpp"
#include "core/errors.hpp"
#include "core/host_workload.hpp"
#include "core/interrupt.hpp"
#include "core/strprintf.hpp"
#include "measure/ab_arm.hpp"
#include "measure/ab_worker.hpp"
#include "measure/backend_opening.hpp"
#include "measure/quality.hpp"
#include "measure/sweep.hpp"
#include "measure/verify.hpp"

namespace readbench {

using nlohmann::json;

std::string AbPairing::name() const {
  return base_path == head_path ? to_string(base_path)
                                : to_string(base_path) + " vs " + to_string(head_path);
}

AbVerdict AbResult::verdict() const {
  bool all_pass = !pairings.empty();
  for (const AbPairing& p : pairings) {
    if (p.comparison && p.comparison->verdict == AbVerdict::regression) return AbVerdict::regression;
    if (p.status == Status::failed && p.failed_arm == "head") return AbVerdict::regression;
    all_pass = all_pass && p.status == Status::ok && p.comparison &&
               p.comparison->verdict == AbVerdict::pass;
  }
  return all_pass ? AbVerdict::pass : AbVerdict::inconclusive;
}

void validate(const AbConfig& c) {
  const SweepConfig& s = c.sweep;
  if (s.backend != BackendChoice::cpu && s.backend != BackendChoice::cuda)
    throw InputError("ab times one backend: --backend must be cpu or cuda");
  if (s.devices.size() != 1) throw InputError("ab times one device: --device takes one index");
  s.shape.validate();
  validate_dtypes(s.dtype, s.workload(0).kv_dtype());
  validate_backend_options(s.threads, s.devices.front());
  if (c.base.paths.empty() || c.head.paths.empty()) throw InputError("ab has no path to compare");
  if (c.base.paths.size() != c.head.paths.size())
    throw InputError("--base-path lists " + std::to_string(c.base.paths.size()) +
                     " path(s) and --head-path " + std::to_string(c.head.paths.size()) +
                     ": the arms' paths pair by position");
  if (!s.auto_lengths && s.lengths.size() < 2)
    throw InputError("ab needs at least two lengths to compare exponents");
  if (s.auto_lengths && s.max_length < kAutoFirstLength)
    throw InputError("--max-length must be at least " + std::to_string(kAutoFirstLength) +
                     " with --lengths auto, got " + std::to_string(s.max_length));
  if (!std::isfinite(s.sweep_budget_s) || s.sweep_budget_s <= 0)
    throw InputError("--sweep-budget must be a finite number of seconds > 0");
  if (!std::isfinite(c.slice_s) || c.slice_s <= 0 || c.slice_s > 10)
    throw InputError("--slice must be a number of seconds in (0, 10]");
  if (!std::isfinite(c.thresholds.tolerance) || c.thresholds.tolerance < 0)
    throw InputError("--tolerance must be a finite number >= 0");
  if (!std::isfinite(c.thresholds.max_cost_ratio) || c.thresholds.max_cost_ratio < 1)
    throw InputError("--max-cost-ratio must be a finite number >= 1");
  if (s.fit_from) check_fit_from(*s.fit_from);
  if (!s.auto_lengths) check_host_memory(s.workload(s.lengths.back()));
}

namespace {

using Clock = std::chrono::steady_clock;

std::string gib(double bytes) {
  return three_digits(bytes / double(1ll << 30)) + " GiB";
}

// Setup and prepare build and verify workloads; a slice is tens of milliseconds. Both get room
// for a slow machine, and each plugin's load and the plugins' checks their timeouts.
std::chrono::milliseconds setup_timeout(const AbConfig& c, const ArmSpec& arm) {
  const double plugin_s = double(arm.plugins.size() + 1) * c.plugin_timeout_s;
  return std::chrono::milliseconds(std::int64_t(1000 * (600 + plugin_s)));
}
constexpr std::chrono::milliseconds kPrepareTimeout{600'000};
std::chrono::milliseconds sample_timeout(double slice_s) {
  return std::chrono::milliseconds(std::int64_t(1000 * (120 + 20 * slice_s)));
}

// Whether two paths name one binary, whose arms can share a worker.
bool one_binary(const std::string& a, const std::string& b) {
  std::error_code e;
  return std::filesystem::equivalent(a, b, e) && !e;
}

struct Arm {
  std::shared_ptr<ArmProcess> process;  // the other arm's too where one worker serves both
  AbArm result;
  std::int64_t memory_available = 0;  // in the backend's own memory, at setup
};

// One arm's samples at one length and path, every slice in order.
struct ArmPoint {
  std::vector<double> samples;  // seconds per call
  int disturbed = 0;
  int calls_per_sample = 1;
};

class Driver {
 public:
  Driver(const AbConfig& c, const Progress& progress) : c_(c), progress_(progress), rng_(c.sweep.seed) {
    r_.config = c;
  }

  AbResult run() {
    const auto start = Clock::now();
    try {
      start_arms();
      grow_and_sample(start);
      finish();
    } catch (const Interrupted& e) {
      r_.signal = e.signal();
      r_.stop_reason = "stopped by " + signal_name(e.signal());
    }
    r_.seconds = seconds_since(start);
    build_runs();
    compare_pairings(r_);
    return std::move(r_);
  }

 private:
  void say(const std::string& m) {
    if (progress_) progress_("ab: " + m);
  }

  Arm& arm(bool base) { return base ? base_ : head_; }

  // A request to one arm's worker, naming the arm.
  json ask(bool base, json request, std::chrono::milliseconds timeout) {
    request["arm"] = base ? "base" : "head";
    return arm(base).process->ask(request, timeout);
  }

  static json arm_request(const char* role, const SweepConfig& arm_config, const AbConfig& c,
                          const ArmSpec& spec) {
    return {{"role", role}, {"config", worker_config_to_json(arm_config, c.plugin_timeout_s, spec.plugins)}};
  }

  SweepConfig arm_config(const ArmSpec& spec) const {
    SweepConfig arm_config = c_.sweep;
    arm_config.paths = spec.paths;
    return arm_config;
  }

  void start_arm(Arm& a, const char* role, const ArmSpec& spec) {
    say("starting the " + std::string(role) + " arm");
    a.process = std::make_shared<ArmProcess>(role, spec.binary);
    say("verifying the " + std::string(role) + " arm");
    const json reply = a.process->ask({{"op", "setup"}, {"arms", json::array({arm_request(role, arm_config(spec), c_, spec)})}},
                                      setup_timeout(c_, spec));
    take_setup(a, role, spec, reply);
  }

  // Both arms in one worker of their shared binary, set up in the order drawn.
  void start_shared(bool base_first) {
    say("starting one worker for both arms");
    base_.process = head_.process = std::make_shared<ArmProcess>("both", c_.base.binary);
    say("verifying both arms");
    json arms = json::array();
    for (bool base : {base_first, !base_first}) {
      const ArmSpec& spec = base ? c_.base : c_.head;
      arms.push_back(arm_request(base ? "base" : "head", arm_config(spec), c_, spec));
    }
    ArmSpec both = c_.base;
    both.plugins.insert(both.plugins.end(), c_.head.plugins.begin(), c_.head.plugins.end());
    const json reply = base_.process->ask({{"op", "setup"}, {"arms", arms}}, setup_timeout(c_, both));
    take_setup(base_, "base", c_.base, reply);
    take_setup(head_, "head", c_.head, reply);
  }

  // The arm's part of its worker's setup reply.
  void take_setup(Arm& a, const char* role, const ArmSpec& spec, const json& replies) {
    a.result.role = role;
    a.result.binary = spec.binary;
    a.result.plugins = spec.plugins;
    a.result.version = a.process->version();
    a.result.git_commit = a.process->git_commit();
    const SweepConfig config = arm_config(spec);
    try {
      const json& reply = replies.at(role);
      BackendResult b = backend_from_json(reply.at("backend"));
      b.name = to_string(c_.sweep.backend);
      b.ceilings_before.push_back(b.bandwidths);
      a.memory_available = reply.at("memory_available").get<std::int64_t>();
      a.result.address_layout = reply.at("address_layout").get<std::string>();
      RunResult& run = a.result.run;
      run.config = config;
      run.config.auto_lengths = false;
      run.backends.push_back(b);
      for (const Path& p : spec.paths) {
        PathResult pr;
        pr.backend = b.name;
        pr.path = p;
        pr.grid_stop = GridStop::explicit_lengths;
        pr.note = reply.at("notes").value(to_string(p), "");
        run.results.push_back(pr);
      }
      for (const json& j : reply.at("checks")) {
        const CheckResult check = check_result_from_json(j);
        for (PathResult& pr : run.results) {
          if (pr.path != check.path) continue;
          pr.checks.push_back(check);
          if (check.passed || pr.status == Status::failed) continue;
          pr.status = Status::failed;
          pr.reason =
              !check.failure.empty()
                  ? "its call failed at L=" + std::to_string(check.length) + ": " + check.failure
                  : "verification failed at L=" + std::to_string(check.length) + ": error " +
                        three_digits(check.error) + " > tolerance " + three_digits(check.tolerance);
        }
      }
    } catch (const json::exception& e) {
      throw InputError("the " + std::string(role) + " arm's setup reply is malformed: " + e.what());
    }
  }

  PathResult& path_result(bool base, const Path& p) {
    for (PathResult& pr : arm(base).result.run.results)
      if (pr.path == p) return pr;
    throw InputError("no result for " + to_string(p));
  }

  void start_arms() {
    // One at a time: only one arm works at any moment, setup included. Which starts first is
    // drawn: the arm that takes its memory first may get other pages than the second.
    const bool base_first = std::bernoulli_distribution(0.5)(rng_);
    r_.one_worker = !c_.separate_workers && one_binary(c_.base.binary, c_.head.binary);
    if (r_.one_worker) {
      start_shared(base_first);
    } else if (base_first) {
      start_arm(base_, "base", c_.base);
      start_arm(head_, "head", c_.head);
    } else {
      start_arm(head_, "head", c_.head);
      start_arm(base_, "base", c_.base);
    }
    host_available_ = double(host_memory_available_bytes());
    for (std::size_t i = 0; i < c_.base.paths.size(); ++i) {
      AbPairing p;
      p.base_path = c_.base.paths[i];
      p.head_path = c_.head.paths[i];
      for (const auto& [base, path] : {std::pair{true, p.base_path}, std::pair{false, p.head_path}}) {
        const PathResult& pr = path_result(base, path);
        if (pr.status != Status::ok && p.status == Status::ok) {
          p.status = Status::failed;
          p.failed_arm = base ? "base" : "head";
          p.reason = std::string(base ? "base" : "head") + " " + to_string(path) + ": " + pr.reason;
        }
      }
      r_.pairings.push_back(p);
    }
  }

  bool any_active() const {
    return std::any_of(r_.pairings.begin(), r_.pairings.end(),
                       [](const AbPairing& p) { return p.status == Status::ok; });
  }

  // Why a workload of `length` in both arms, beside those prepared, would not fit; empty if it does.
  std::string memory_stop(std::int64_t length) {
    const json rb = ask(true, {{"op", "bytes"}, {"length", length}}, kPrepareTimeout);
    const json rh = ask(false, {{"op", "bytes"}, {"length", length}}, kPrepareTimeout);
    const double host = std::max(rb.at("host").get<double>(), rh.at("host").get<double>());
    const bool cpu = c_.sweep.backend == BackendChoice::cpu;
    // One worker's arms on a CPU read one host workload.
    const double backend = rb.at("backend").get<double>() + rh.at("backend").get<double>() -
                           (cpu && r_.one_worker ? host : 0);
    const std::string at = "L=" + std::to_string(length);
    if (cpu) {
      if (held_backend_ + backend > kAutoMemoryShare * host_available_)
        return at + " needs " + gib(backend) + " for both arms beside the " + gib(held_backend_) +
               " held, more than half of the " + gib(host_available_) + " of host memory available";
    } else {
      const double device = double(std::min(base_.memory_available, head_.memory_available));
      if (held_backend_ + backend > kAutoMemoryShare * device)
        return at + " needs " + gib(backend) + " of device memory for both arms beside the " +
               gib(held_backend_) + " held, more than half of the " + gib(device) + " available";
      if (host > kAutoMemoryShare * host_available_)
        return at + " needs " + gib(host) + " of host memory to build, more than half of the " +
               gib(host_available_) + " available";
    }
    held_backend_ += backend;
    return {};
  }

  void prepare(std::int64_t length) {
    // Which arm builds its workload first is drawn at each length, for the same reason as the
    // start order: an order effect becomes one offset per length, which the comparison's
    // spread between lengths (paired.hpp) carries, instead of one bias for every length.
    const bool base_first = std::bernoulli_distribution(0.5)(rng_);
    for (bool base : {base_first, !base_first}) {
      say("preparing L=" + std::to_string(length) + " in the " + (base ? "base" : "head") + " arm");
      const json reply = ask(base, {{"op", "prepare"}, {"length", length}}, kPrepareTimeout);
      for (const json& p : reply.at("paths")) {
        const Path path = parse_path(p.at("path").get<std::string>());
        if (p.contains("error")) {
          fail(base, path, "its call failed at L=" + std::to_string(length) + ": " +
                               p["error"].get<std::string>());
          continue;
        }
        points_[{base, path, length}].calls_per_sample = p.at("calls_per_sample").get<int>();
      }
      replicas_[{base, length}] = reply.at("replicas").get<int>();
    }
    r_.lengths.push_back(length);
  }

  void fail(bool base, const Path& path, const std::string& why) {
    PathResult& pr = path_result(base, path);
    pr.status = Status::failed;
    pr.reason = why;
    for (AbPairing& p : r_.pairings)
      if ((base ? p.base_path : p.head_path) == path && p.status == Status::ok) {
        p.status = Status::failed;
        p.failed_arm = base ? "base" : "head";
        p.reason = std::string(base ? "base " : "head ") + to_string(path) + ": " + why;
      }
  }

  // One slice: the arm's samples for c_.slice_s; returns the slice's statistic and whether a
  // sample of it was disturbed.
  std::pair<double, bool> slice(bool base, const Path& path, std::int64_t length) {
    throw_if_interrupted();
    const json reply = ask(base,
        {{"op", "sample"}, {"length", length}, {"path", to_string(path)}, {"seconds", c_.slice_s}},
        sample_timeout(c_.slice_s));
    // A plugin whose call failed fails its pairing; an arm that died ends the comparison.
    if (reply.contains("path_error")) {
      fail(base, path, "its call failed at L=" + std::to_string(length) + ": " +
                           reply["path_error"].get<std::string>());
      return {0, false};
    }
    const auto times = reply.at("s").get<std::vector<double>>();
    const auto disturbed = reply.at("disturbed").get<std::vector<int>>();
    if (times.empty() || times.size() != disturbed.size())
      throw InputError("the " + std::string(base ? "base" : "head") + " arm sent a malformed slice");
    ArmPoint& pt = points_[{base, path, length}];
    std::vector<double> clean;
    bool any_disturbed = false;
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (!std::isfinite(times[i]) || times[i] <= 0)
        throw InputError("the " + std::string(base ? "base" : "head") + " arm sent a time of " +
                         three_digits(times[i]) + " s");
      pt.samples.push_back(times[i]);
      if (disturbed[i] != 0) {
        ++pt.disturbed;
        any_disturbed = true;
      } else {
        clean.push_back(times[i]);
      }
    }
    // The slice's time by the run's statistic, over its clean samples where it has any.
    std::vector<double> kept = clean.empty() ? times : clean;
    std::sort(kept.begin(), kept.end());
    const double t = c_.sweep.statistic == Statistic::min ? kept.front() : kept[kept.size() / 2];
    return {t, any_disturbed};
  }

  // A block of four slices at one length, ABBA or BAAB: two pairs, each base beside head.
  void block(AbPairing& p, std::int64_t length) {
    const bool base_first = std::bernoulli_distribution(0.5)(rng_);
    const bool order[4] = {base_first, !base_first, !base_first, base_first};
    double t[4];
    bool disturbed[4];
    for (int i = 0; i < 4; ++i) {
      const Path& path = order[i] ? p.base_path : p.head_path;
      std::tie(t[i], disturbed[i]) = slice(order[i], path, length);
      if (p.status != Status::ok) return;
    }
    auto it = std::find_if(p.slices.begin(), p.slices.end(),
                           [&](const PairedLength& pl) { return pl.length == length; });
    if (it == p.slices.end()) {
      it = p.slices.insert(std::upper_bound(p.slices.begin(), p.slices.end(), length,
                                            [](std::int64_t l, const PairedLength& pl) { return l < pl.length; }),
                           PairedLength{length, {}, {}});
      p.disturbed_pairs.insert(p.disturbed_pairs.begin() + (it - p.slices.begin()), 0);
    }
    const std::size_t k = std::size_t(it - p.slices.begin());
    for (int pair = 0; pair < 2; ++pair) {
      const int a = 2 * pair, b = 2 * pair + 1;  // one of each arm
      const int base_i = order[a] ? a : b, head_i = order[a] ? b : a;
      it->base_s.push_back(t[base_i]);
      it->head_s.push_back(t[head_i]);
      if (disturbed[a] || disturbed[b]) ++p.disturbed_pairs[k];
    }
  }

  // The base arm's fit of one pairing over the medians of its slices so far.
  std::optional<ReadFit> base_fit(const AbPairing& p) const {
    try {
      return fit_read(base_medians(p), {c_.sweep.fit_from, std::nullopt, std::nullopt});
    } catch (const FitError&) {
      return std::nullopt;
    }
  }

  double kv_bytes_per_token() const { return double(c_.sweep.workload(1).kv_bytes_per_call()); }

  void grow_and_sample(Clock::time_point start) {
    const SweepConfig& s = c_.sweep;
    const double budget = s.sweep_budget_s;
    if (!any_active()) {
      r_.stop_reason = "no pairing passed its checks in both arms";
      return;
    }
    if (!s.auto_lengths) {
      for (std::int64_t len : s.lengths) {
        if (const std::string why = memory_stop(len); !why.empty())
          throw InputError(why + ": ask for shorter lengths or a smaller shape");
        prepare(len);
      }
      r_.grid_stop = GridStop::explicit_lengths;
    } else {
      double last_length_s = 0;
      for (std::int64_t len = kAutoFirstLength;; len *= kAutoLengthFactor) {
        if (len > s.max_length) {
          r_.grid_stop = GridStop::max_length;
          r_.grid_reason = "L=" + std::to_string(len) + " is past --max-length " + std::to_string(s.max_length);
          break;
        }
        if (r_.lengths.size() >= 2 &&
            seconds_since(start) + kAutoLengthFactor * last_length_s > kAbGrowthShare * budget) {
          r_.grid_stop = GridStop::sweep_budget;
          r_.grid_reason = "L=" + std::to_string(len) + " would take the grid past its share of --sweep-budget";
          break;
        }
        if (const std::string why = memory_stop(len); !why.empty()) {
          if (r_.lengths.size() < 2) throw InputError(why);
          r_.grid_stop = GridStop::memory;
          r_.grid_reason = why;
          break;
        }
        const auto length_start = Clock::now();
        prepare(len);
        say("timing L=" + std::to_string(len));
        for (int b = 0; b < kAbGrowthBlocks; ++b)
          for (AbPairing& p : r_.pairings)
            if (p.status == Status::ok) block(p, len);
        last_length_s = seconds_since(length_start);
        if (!any_active()) break;
        const bool all_reached = std::all_of(r_.pairings.begin(), r_.pairings.end(), [&](const AbPairing& p) {
          if (p.status != Status::ok) return true;
          const auto fit = base_fit(p);
          return fit && fit->asymptote_reached;
        });
        if (all_reached && r_.lengths.size() >= std::size_t(kAsymptoteLengths)) {
          r_.grid_stop = GridStop::reached;
          r_.grid_reason = "every base path reached its asymptote";
          break;
        }
      }
    }
    // Rounds over the grid in a new order each time, until every pairing is decided.
    std::vector<std::int64_t> order = r_.lengths;
    double last_round_s = 0;
    while (any_active()) {
      if (r_.rounds >= kAbMaxRounds) {
        r_.stop_reason = std::to_string(kAbMaxRounds) + " rounds taken";
        break;
      }
      if (r_.rounds > 0 && seconds_since(start) + last_round_s > budget) {
        r_.stop_reason = "--sweep-budget " + three_digits(budget) + " s spent after " +
                         std::to_string(r_.rounds) + " rounds";
        break;
      }
      const auto round_start = Clock::now();
      std::shuffle(order.begin(), order.end(), rng_);
      say("round " + std::to_string(r_.rounds + 1));
      for (std::int64_t len : order)
        for (AbPairing& p : r_.pairings)
          if (p.status == Status::ok) block(p, len);
      ++r_.rounds;
      last_round_s = seconds_since(round_start);
      if (r_.rounds < kAbMinRounds) continue;
      compare_pairings(r_);
      const bool decided = std::all_of(r_.pairings.begin(), r_.pairings.end(), [](const AbPairing& p) {
        return p.status != Status::ok || (p.comparison && p.comparison->verdict != AbVerdict::inconclusive);
      });
      if (decided) {
        r_.stop_reason = "every pairing decided after " + std::to_string(r_.rounds) + " rounds";
        break;
      }
    }
    if (r_.stop_reason.empty()) r_.stop_reason = "no pairing left to time";
  }

  void finish() {
    for (bool base : {true, false}) {
      say("measuring the " + std::string(base ? "base" : "head") + " arm's ceiling again");
      const json reply = ask(base, {{"op", "ceiling"}}, kPrepareTimeout);
      BackendResult& b = arm(base).result.run.backends.front();
      b.ceilings_after.push_back({reply.at("read_gbps").get<double>(), reply.at("copy_gbps").get<double>(),
                                  reply.at("buffer_bytes").get<std::int64_t>()});
      b.device_conditions = reply.at("device_conditions").get<std::vector<std::string>>();
    }
  }

  // Each arm as a run report: every slice's samples make its points.
  void build_runs() {
    for (bool base : {true, false}) {
      RunResult& run = arm(base).result.run;
      run.signal = r_.signal;
      run.config.lengths = r_.lengths;
      if (run.config.lengths.empty()) run.config.lengths = {kAutoFirstLength};
      if (run.backends.empty()) continue;  // stopped before its setup
      BackendResult& b = run.backends.front();
      for (const Bandwidths& x : b.ceilings_after)
        if (x.read_gbps > b.bandwidths.read_gbps) b.bandwidths = x;
      if (!b.ceilings_after.empty()) {
        const double before = b.ceilings_before.front().read_gbps, after = b.ceilings_after.back().read_gbps;
        if (std::abs(after - before) > kCeilingMoveTolerance * std::max(before, after))
          run.quality.reasons.push_back(b.name + " read ceiling moved from " +
                                        three_digits(before) + " GB/s before the comparison to " +
                                        three_digits(after) + " GB/s after it");
      }
      for (const std::string& seen : b.device_conditions) run.quality.reasons.push_back(b.name + ": " + seen);
      run.quality.contended = !run.quality.reasons.empty();
      for (PathResult& pr : run.results) {
        if (pr.status != Status::ok) continue;
        for (std::int64_t len : r_.lengths) {
          const auto it = points_.find({base, pr.path, len});
          if (it == points_.end() || it->second.samples.empty()) continue;
          PointResult pt;
          pt.length = len;
          pt.replicas = replicas_[{base, len}];
          pt.bytes = bytes_per_call(run.config.workload(len), pr.path);
          Measurement& m = pt.measurement;
          m.calls_per_sample = it->second.calls_per_sample;
          m.disturbed = it->second.disturbed;
          m.rounds = 1;
          m.per_call = summarize(it->second.samples);
          pt.seconds = run.config.statistic == Statistic::min ? m.per_call.min : m.per_call.median;
          pt.gbps = double(pt.bytes.total()) / pt.seconds / 1e9;
          pt.ceiling_fraction = pt.gbps / b.bandwidths.read_gbps;
          pr.points.push_back(pt);
        }
        if (!r_.complete()) pr.grid_stop = GridStop::interrupted;
        std::vector<TimedPoint> pts;
        for (const PointResult& pt : pr.points) pts.push_back({double(pt.length), pt.seconds});
        try {
          pr.fit = fit_read(pts, {c_.sweep.fit_from, kv_bytes_per_token(), b.bandwidths.read_gbps});
        } catch (const FitError& e) {
          pr.fit_error = e.what();
        }
      }
    }
    r_.base = std::move(base_.result);
    r_.head = std::move(head_.result);
  }

  const AbConfig& c_;
  Progress progress_;
  std::mt19937_64 rng_;
  AbResult r_;
  Arm base_, head_;
  double host_available_ = 0, held_backend_ = 0;
  std::map<std::tuple<bool, Path, std::int64_t>, ArmPoint> points_;
  std::map<std::pair<bool, std::int64_t>, int> replicas_;
};

}  // namespace

std::vector<TimedPoint> base_medians(const AbPairing& p) {
  std::vector<TimedPoint> pts;
  for (const PairedLength& pl : p.slices) {
    std::vector<double> v = pl.base_s;
    std::sort(v.begin(), v.end());
    pts.push_back({double(pl.length), v[v.size() / 2]});
  }
  return pts;
}

void compare_pairings(AbResult& r) {
  for (AbPairing& p : r.pairings) {
    p.comparison.reset();
    if (p.slices.size() < 2) continue;
    // The region is where the base has reached its asymptote (asymptote_fit.hpp), judged on the
    // medians of its slices: the pairs alone decide the comparison.
    double fit_from = 0;
    try {
      fit_from = fit_read(base_medians(p), {r.config.sweep.fit_from, std::nullopt, std::nullopt}).fit_from;
    } catch (const FitError&) {
      fit_from = 0;
    }
    p.comparison = compare_pairs(p.slices, fit_from, r.config.thresholds, r.config.method);
  }
}

AbResult run_ab(const AbConfig& config, const Progress& progress) {
  validate(config);
  Driver d(config, progress);
  return d.run();
}

}  // namespace readbench
