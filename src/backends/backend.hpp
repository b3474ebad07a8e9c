#pragma once
// What the sweep needs from a place that runs the two reads. CPU and CUDA
// implement this; the sweep never asks which one it holds.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_workload.hpp"
#include "core/read_path.hpp"

namespace readbench {

class Plugin;

// Streaming ceilings measured on this backend in this run, in GB/s (1e9 B/s).
struct Bandwidths {
  double read_gbps = 0;           // read-only pass over a buffer many times the last-level cache
  double copy_gbps = 0;           // memcpy / cudaMemcpy D2D, bytes read plus written
  std::int64_t buffer_bytes = 0;  // size of the buffer each was measured on
};

struct GpuInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  int sm_clock_mhz = 0;      // maximum, as the device reports it
  int memory_clock_mhz = 0;  // maximum, as the device reports it
  int memory_bus_bits = 0;
  std::string driver_version;   // e.g. "13.0"
  std::string runtime_version;  // e.g. "13.0"
};

// Settings of a backend that change its numbers, for the report.
struct BackendDetails {
  int threads = 0;           // CPU worker threads (0 where not applicable)
  std::string kernels;       // which compiled kernels run, e.g. "avx512" or "baseline"
  std::string threads_from;  // what set `threads`: "--threads", "affinity" or "cgroup quota"
  std::string wait_policy;   // how idle CPU workers wait, e.g. "GOMP_SPINCOUNT=10000 (default)"
  std::string monitor;       // what watches the device for other work: "nvml", or why nothing
  std::string cache_from;    // where cache_bytes came from: "sysfs", or what was assumed
  std::string cold_flush;    // how a cold sample's caches are emptied, e.g. "clflushopt"
  std::string launch;        // how a GPU's timed calls are issued and how far they overlap
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;  // "cpu" or "cuda"
  // Smallest interval the backend's timer resolves, in seconds.
  virtual double timer_resolution_s() const = 0;
  // Bytes of the last-level cache (L3 / L2) a cold sample has to defeat.
  virtual std::int64_t cache_bytes() const = 0;
  virtual std::optional<GpuInfo> gpu_info() const { return std::nullopt; }
  virtual BackendDetails details() const { return {}; }

  virtual Bandwidths measure_bandwidths() = 0;

  // Bytes free now in the memory this backend's calls read (host memory for the CPU, device
  // memory for a GPU), for sizing the longest length a grid may take on.
  virtual std::int64_t memory_available_bytes() const { return host_memory_available_bytes(); }
  // Bytes a prepared workload takes there: pools, queries, outputs, tables and the gather
  // path's contiguous history.
  virtual std::int64_t workload_bytes(const Workload& w) const {
    return host_workload_bytes(w) +
           std::int64_t(w.replicas) * w.io_elements() * std::int64_t(element_size(w.dtype)) +
           w.kv_bytes_per_call();
  }

  // Takes the inputs of all following calls. Throws BackendError when they cannot fit.
  virtual void prepare(HostWorkload&& w) = 0;
  // Lets go of the prepared workload's host memory, so that the next one is built in its place
  // rather than beside it (measure/run_memory.hpp counts on it). The next call must be prepare.
  virtual void release() {}
  // One call on replica 0 into a poisoned (NaN) output; returns the output [B, Hq, D] in f64.
  virtual std::vector<double> run_for_check(Path p) = 0;
  // Replica `replica`'s output [B, Hq, D] in f64 as the last call on it left it (the GPU tests
  // read what back-to-back timed calls wrote). Backends that keep no such buffer throw
  // BackendError.
  virtual std::vector<double> read_output(int replica);
  // Seconds for `calls` back-to-back calls cycling over the replicas (call i uses replica
  // i % replicas). When cold, caches are flushed first and the flush is not timed.
  virtual double time_calls(Path p, int calls, CacheState cache) = 0;
  // Whether the last time_calls lost its CPUs to something else while timed (preempted, or kept
  // waiting for a core), so its time is the scheduler's as much as the read's. Backends that
  // cannot tell say no.
  virtual bool last_sample_disturbed() const { return false; }
  // Adds a plugin's read (plugins/plugin.hpp) for the backend it names: from the next prepare
  // on, the path plugin:NAME calls it on this backend's buffers, with this backend's timing and
  // cache discipline. Backends that take no plugins throw BackendError.
  virtual void add_plugin(std::shared_ptr<const Plugin> plugin);
  // How the calls of `p` were issued, where the report should say so (a CUDA plugin whose calls
  // could not be captured in a graph); empty otherwise.
  virtual std::string path_note(const Path&) const { return {}; }
  // What else ran on the device during the sweep (other processes, clocks held down), one line
  // each; empty when nothing was seen or the backend cannot tell.
  virtual std::vector<std::string> device_conditions() const { return {}; }
};

std::unique_ptr<Backend> make_cpu_backend(int threads);  // threads <= 0: available_cpus()
// Throws BackendUnavailable with the reason (built without CUDA, no driver, no device).
std::unique_ptr<Backend> make_cuda_backend(int device);
// CUDA devices this process sees (0 without a driver, a device, or CUDA in this build).
int cuda_device_count();

}  // namespace readbench
