#pragma once
// What a sweep produces; the report writers read only this.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "core/bytes_model.hpp"
#include "core/fit.hpp"
#include "measure/sampler.hpp"

namespace readbench {

enum class Status { ok, unavailable, failed };
std::string_view to_string(Status s);

enum class BackendChoice { cpu, cuda, all, auto_ };
BackendChoice parse_backend_choice(std::string_view s);  // throws InputError
std::string_view to_string(BackendChoice b);

enum class Statistic { min, median };
Statistic parse_statistic(std::string_view s);  // throws InputError
std::string_view to_string(Statistic s);

struct SweepConfig {
  BackendChoice backend = BackendChoice::auto_;
  std::vector<Path> paths{Path::gather, Path::fused};
  std::vector<std::int64_t> lengths{16, 64, 256, 1024, 4096};
  Shape shape;
  DType dtype = DType::bf16;
  SamplingPolicy sampling;
  Statistic statistic = Statistic::min;  // what the fit, GB/s and speedups use
  double fit_from = 0;
  int threads = 0;  // 0: all cores
  int device = 0;
  std::uint64_t seed = 42;
};

struct CheckResult {
  Path path = Path::fused;
  std::int64_t length = 0;
  int batch = 0;
  DType dtype = DType::bf16;
  double error = 0;  // relative Frobenius error against the f64 reference
  double tolerance = 0;
  bool passed = false;
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
  std::optional<FitResult> fit;
  std::string fit_error;  // why there is no fit, when there is none
};

struct BackendResult {
  std::string name;
  Status status = Status::ok;
  std::string reason;
  Bandwidths bandwidths;
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
};

struct RunResult {
  SweepConfig config;
  std::vector<BackendResult> backends;
  std::vector<PathResult> results;
  std::vector<Speedup> speedups;
  bool all_checks_passed() const;
};

// gather / fused; throws InputError on a zero or negative time.
double speedup_of(double gather_s, double fused_s);

using Progress = std::function<void(std::string_view)>;

}  // namespace readbench
