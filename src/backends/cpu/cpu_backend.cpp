// The CPU backend: runs the reads of paged_attention.cpp on host memory, timed by a
// monotonic clock, with a cache flush between cold samples.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "backends/backend.hpp"
#include "backends/cpu/paged_attention.hpp"
#include "backends/cpu/stream_bandwidth.hpp"
#include "core/errors.hpp"

namespace readbench {

namespace {

using Clock = std::chrono::steady_clock;

// Smallest non-zero step of the clock seen in a burst of reads: its practical resolution.
double measure_clock_resolution() {
  double best = 1.0;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = Clock::now();
    auto t1 = Clock::now();
    while (t1 == t0) t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads)
      : threads_(threads > 0 ? threads : omp_get_num_procs()),
        resolution_(measure_clock_resolution()) {}

  std::string_view name() const override { return "cpu"; }
  double timer_resolution_s() const override { return resolution_; }
  std::int64_t cache_bytes() const override { return cpu::last_level_cache_bytes(); }

  BackendDetails details() const override {
    return {threads_, std::string(cpu::instruction_set())};
  }

  Bandwidths measure_bandwidths() override { return cpu::measure_host_bandwidths(threads_); }

  void prepare(HostWorkload&& w) override {
    work_ = std::move(w);
    const Workload& wl = work_->workload;
    const std::size_t out_bytes =
        std::size_t(wl.replicas) * wl.io_elements() * element_size(wl.dtype);
    out_ = AlignedBuffer(out_bytes);
    const std::size_t history = std::size_t(wl.kv_bytes_per_call() / 2);
    gather_k_ = AlignedBuffer(history);
    gather_v_ = AlignedBuffer(history);
  }

  std::vector<double> run_for_check(Path p) override {
    const Workload& wl = require_workload();
    const std::int64_t n = wl.io_elements();
    for (std::int64_t i = 0; i < n; ++i)
      store_as(wl.dtype, out_.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
    run(p, 0);
    std::vector<double> out(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      out[std::size_t(i)] = load_as(wl.dtype, out_.data(), std::size_t(i));
    return out;
  }

  double time_calls(Path p, int calls, CacheState cache) override {
    const Workload& wl = require_workload();
    if (cache == CacheState::cold) {
      if (!flusher_) flusher_.emplace(threads_);
      flusher_->flush();
    }
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) run(p, i % wl.replicas);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }

 private:
  const Workload& require_workload() const {
    if (!work_) throw BackendError("cpu backend: no workload prepared");
    return work_->workload;
  }

  void run(Path p, int replica) {
    const Workload& wl = work_->workload;
    std::byte* out = out_.data() + std::size_t(replica) * wl.io_elements() * element_size(wl.dtype);
    if (p == Path::fused)
      cpu::fused_read(*work_, replica, out, threads_);
    else
      cpu::gather_read(*work_, replica, out, {gather_k_.data(), gather_v_.data()}, threads_);
  }

  int threads_;
  double resolution_;
  std::optional<HostWorkload> work_;
  AlignedBuffer out_, gather_k_, gather_v_;
  std::optional<cpu::CacheFlusher> flusher_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) {
  return std::make_unique<CpuBackend>(threads);
}

}  // namespace readbench
