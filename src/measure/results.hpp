#pragma once
// What a sweep produces; the report writers read only this.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "core/asymptote_fit.hpp"
#include "core/bytes_model.hpp"
#include "core/report_words.hpp"
#include "measure/backend_word.hpp"
#include "measure/quality.hpp"
#include "measure/sampler.hpp"
#include "plugins/plugin.hpp"

namespace readbench {

// The grid of `--lengths auto`: x4 from 16 (so it shares the lengths 16, 64, 256, 1024, 4096)
// until each path reaches its asymptote (asymptote_fit.hpp), within the bounds below.
constexpr std::int64_t kAutoFirstLength = 16;
constexpr std::int64_t kAutoLengthFactor = 4;
// At most this share of the memory available when a backend opens goes to one workload.
constexpr double kAutoMemoryShare = 0.5;
// Sampling rounds under --rounds auto: on the CPU, whose memory bandwidth other tenants of the
// machine share unseen, three; on a GPU, whose other work and clocks the monitor sees, one.
constexpr int kCpuAutoRounds = 3;
constexpr int kMaxRounds = 100;

struct SweepConfig {
  BackendChoice backend = BackendChoice::auto_;
  std::vector<Path> paths{Path::gather, Path::fused};
  bool auto_lengths = true;           // grow the grid per path; `lengths` is then unused
  std::vector<std::int64_t> lengths;  // an explicit grid, increasing
  std::int64_t max_length = 4194304;  // auto grid: the longest length it may time
  double sweep_budget_s = 120;        // auto grid: seconds per backend before no new length starts
  // Sampling rounds over the whole grid: the first grows it, each later one samples every
  // point again in the opposite order (sweep.cpp), so drift during a run moves every length.
  // Empty: auto (rounds_on).
  std::optional<int> rounds;
  Shape shape;
  DType dtype = DType::bf16;        // q and the output
  std::optional<DType> kv_storage;  // K/V; empty: dtype
  SamplingPolicy sampling;
  Statistic statistic = Statistic::min;  // what the fit, GB/s and speedups use
  std::optional<double> fit_from;        // empty: auto (asymptote_fit.hpp)
  int threads = 0;                       // 0: every CPU the process may use
  std::vector<int> devices{0};           // CUDA devices, increasing; empty: every one visible
  std::uint64_t seed = 42;
  // Loaded plugins (--plugin); `paths` holds the plugin paths to time.
  Plugins plugins;
  // Plugins not to call in this process, and why: their check crashed or hung in a child
  // process (plugin_check.hpp). Their paths are failed, never called.
  std::map<std::string, std::string> plugins_not_called;

  // The rounds a backend named `backend` ("cpu", "cuda", "cuda:1") samples in.
  int rounds_on(const std::string& backend) const;

  // The workload of one length (one replica): the configured shape, dtypes and seed.
  Workload workload(std::int64_t length) const {
    return Workload{shape, dtype, length, 1, seed, kv_storage};
  }
};

struct CheckResult {
  Path path = Path::fused;
  std::int64_t length = 0;
  int batch = 0;
  DType dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  double error = 0;  // relative Frobenius error against the f64 reference
  double tolerance = 0;
  bool passed = false;
  std::string failure;  // why the call itself failed (a plugin's error), or empty
};

struct PointResult {
  std::int64_t length = 0;
  Measurement measurement;
  int replicas = 1;
  BytesModel bytes;
  double seconds = 0;  // the configured statistic, per call
  double gbps = 0;
  double ceiling_fraction = 0;
};

struct PathResult {
  std::string backend;
  Path path = Path::fused;
  Status status = Status::ok;
  std::string reason;
  std::vector<CheckResult> checks;
  std::vector<PointResult> points;
  std::optional<ReadFit> fit;  // its shares are in the points' order
  std::string fit_error;       // why there is no fit, when there is none
  GridStop grid_stop = GridStop::not_timed;
  std::string grid_reason;  // one line, for a grid a bound stopped
  std::string note;         // how the backend issued the calls, where that differs (path_note)
};

struct BackendResult {
  std::string name;
  Status status = Status::ok;
  std::string reason;
  Bandwidths bandwidths;                                    // the best of every measurement below
  std::vector<Bandwidths> ceilings_before, ceilings_after;  // each measurement, in order
  std::vector<Bandwidths> ceilings_between;                 // one after each later sampling round
  std::vector<std::string> device_conditions;  // other work seen on the device, one line each
  std::optional<GpuInfo> gpu;
  double timer_resolution_s = 0;
  std::int64_t cache_bytes = 0;
  BackendDetails details;
};

struct Speedup {
  std::string backend;
  std::int64_t length = 0;
  double gather_s = 0;
  double fused_s = 0;
  double speedup = 0;  // gather / fused
  // Both points met their noise target with no disturbed sample kept: a headline figure. One
  // from a disturbed point is noise (a contended run's 68x from one point that is 0.95x clean).
  bool clean = false;
};

// A CUDA device slower than the fastest of its siblings at one path and length, beyond both
// devices' sample spread (median - min) and kSlowDeviceMargin.
struct SlowDevice {
  std::string backend;  // "cuda:N"
  std::string fastest;  // the sibling it is compared with
  Path path = Path::fused;
  std::int64_t length = 0;
  double ratio = 1;  // its time over the fastest's
};
inline constexpr double kSlowDeviceMargin = 0.02;

struct RunResult {
  SweepConfig config;
  Quality quality;
  std::vector<BackendResult> backends;
  std::vector<PathResult> results;
  std::vector<Speedup> speedups;
  std::vector<SlowDevice> slow_devices;  // empty unless several devices were swept
  // The signal that stopped the sweep (core/interrupt.hpp), 0 when it ran to the end.
  int signal = 0;
  // How a plugin ended the process mid-sweep ("exit(0)", "quick_exit()"), empty when none did:
  // the result is then what the sweep had measured when the plugin's exit came (sweep_so_far).
  std::string plugin_exit;
  bool all_checks_passed() const;
  bool complete() const { return signal == 0 && plugin_exit.empty(); }
};

// gather / fused; throws InputError on a zero or negative time.
double speedup_of(double gather_s, double fused_s);

using Progress = std::function<void(std::string_view)>;

}  // namespace readbench
