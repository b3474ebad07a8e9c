#pragma once
// `readbench ab`, the same-runner gate: two implementations of the read (two readbench builds,
// two plugins, or a plugin and a built-in path) timed in one sweep, each in a worker process
// of its own (ab_arm.hpp), one arm at a time. Within a length the arms alternate in blocks of
// four slices, ABBA or BAAB at random, each slice a few tens of milliseconds of samples, and
// every round visits the lengths in a new random order: whatever the machine does meanwhile
// falls on both arms of a pair. The pairs are compared in core/paired.hpp; rounds go on until
// every comparison is decided or the sweep budget is spent.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/paired.hpp"
#include "measure/results.hpp"

namespace readbench {

struct ArmSpec {
  std::string binary;                // a readbench executable
  std::vector<std::string> plugins;  // --plugin files its worker loads
  std::vector<Path> paths;           // paired by position with the other arm's
};

// Rounds before the first verdict: a CI from fewer pairs is too easily narrow by luck.
inline constexpr int kAbMinRounds = 6;
inline constexpr int kAbMaxRounds = 10000;
// Slices of an auto grid's new length before the fit decides whether the grid grows on.
inline constexpr int kAbGrowthBlocks = 2;
// The auto grid may spend this share of --sweep-budget growing; the rest samples rounds.
inline constexpr double kAbGrowthShare = 0.5;

// The defaults that differ by backend (docs/gate.md, "The defaults"). On a CPU of a shared VM
// a pair's slices read up to 10-15% apart at the longest lengths, so shorter slices (more
// pairs, each closer in time) and a looser cost bound are what let an A/A pass there while a
// 5% regression is still caught; a GPU's pairs agree to a fraction of a percent, and there the
// bound stays tight.
struct AbDefaults {
  double slice_s;
  double max_cost_ratio;
};
constexpr AbDefaults ab_defaults(BackendChoice b) {
  return b == BackendChoice::cpu ? AbDefaults{0.010, 1.03} : AbDefaults{0.025, 1.02};
}

struct AbConfig {
  // The shared workload, grid, fit and budget: shape, dtypes, cache, statistic, seed, threads,
  // the backend (cpu or cuda) and its one device; its paths and plugins are unused.
  SweepConfig sweep;
  ArmSpec base, head;
  PairedThresholds thresholds;
  // How the pairs are summarised: the median for a new comparison; a report read back keeps
  // the method it names.
  PairedMethod method = PairedMethod::median;
  double slice_s = 0.025;  // sampling time of one slice
  double plugin_timeout_s = kPluginCheckTimeout;
  // Each arm in a worker of its own even when both are one binary (which otherwise share one
  // worker, and on a CPU one workload in memory).
  bool separate_workers = false;
};

struct AbArm {
  std::string role, binary, version, git_commit;
  std::vector<std::string> plugins;
  // "fixed": the worker ran without address-space randomization, as both arms should (the
  // same build then lays out its buffers alike in both); "randomized" where it was refused.
  std::string address_layout = "fixed";
  // The arm as a run report: its points (every slice's samples), fits and checks.
  RunResult run;
};

// One base path against one head path.
struct AbPairing {
  Path base_path, head_path;
  Status status = Status::ok;
  std::string failed_arm;             // "base" or "head" when it failed
  std::string reason;                 // why it failed
  std::vector<PairedLength> slices;   // the lengths with pairs, increasing
  std::vector<int> disturbed_pairs;   // per entry of slices: pairs a disturbed sample touched
  std::optional<PairedComparison> comparison;
  std::string name() const;  // "fused", or "fused vs plugin:x" when the arms' paths differ
};

struct AbResult {
  AbConfig config;
  AbArm base, head;
  std::vector<std::int64_t> lengths;  // the grid, increasing
  GridStop grid_stop = GridStop::explicit_lengths;
  std::string grid_reason;
  std::vector<AbPairing> pairings;
  // Both arms in one worker (one binary, not --separate-workers): on a CPU they read the same
  // workload in memory, so no difference of where each arm's pages lie enters their pairs.
  bool one_worker = false;
  int rounds = 0;           // complete rounds over the grid after it was grown
  std::string stop_reason;  // why sampling ended
  double seconds = 0;       // wall time of the whole comparison
  int signal = 0;           // the signal that stopped it, 0 when it ran to the end
  bool complete() const { return signal == 0; }
  // regression when any pairing is one or its head failed (a read that broke), else inconclusive
  // when any is not a pass (its base failed, or its CIs straddle a bound), else pass.
  AbVerdict verdict() const;
};

// Throws InputError for a configuration no worker could take, an arm that cannot start or speaks
// another protocol, and a worker's refusal; a signal ends it at the next slice with what was
// measured (signal set).
AbResult run_ab(const AbConfig& config, const Progress& progress = {});

// The base side of a pairing: each length's median slice, the points its region is fitted on.
std::vector<TimedPoint> base_medians(const AbPairing& p);
// The pairings' statistics from their slices, each over the region of its base_medians' fit.
void compare_pairings(AbResult& r);

// Throws InputError naming the first invalid option.
void validate(const AbConfig& c);

}  // namespace readbench
