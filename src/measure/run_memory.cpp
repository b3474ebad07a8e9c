#include "measure/run_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "backends/cpu/cache_flusher.hpp"
#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/stream_bandwidth.hpp"
#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "measure/backend_opening.hpp"
#include "measure/verify.hpp"

namespace readbench {

namespace {

// What a buffer of `bytes` takes once written: an AlignedBuffer from 64 KiB up has a mapping of
// its own, faulted in 2 MiB huge pages where transparent huge pages are on (aligned_buffer.hpp),
// else in base pages; smaller ones come from the heap.
std::int64_t resident(std::int64_t bytes) {
  static const std::int64_t unit = [] {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(f, modes);
    const bool huge = !modes.empty() && modes.find("[never]") == std::string::npos;
    return huge ? std::int64_t(2) << 20 : std::int64_t(page_size());
  }();
  if (bytes < (std::int64_t(64) << 10)) return bytes;
  return (bytes + unit - 1) / unit * unit;
}

std::int64_t f64_output_bytes(const Workload& w) {
  return w.io_elements() * std::int64_t(sizeof(double));
}

// make_host_workload's buffers: queries, K and V pools at whole blocks, block tables.
std::int64_t built_bytes(const Workload& w) {
  return resident(w.replicas * w.io_elements() * std::int64_t(element_size(w.dtype))) +
         2 * resident(w.pool_elements() * std::int64_t(element_size(w.kv_dtype()))) +
         w.num_blocks() * std::int64_t(sizeof(std::int32_t));
}

bool is_cpu(std::string_view kind) {
  return kind == "cpu";
}

// The paths of `c` a backend of `kind` runs, as far as its memory goes.
struct PathsRun {
  bool gather = false;  // the CPU's gather workspace
  bool hnd = false;     // a plugin's head-major copy of the pools
};
PathsRun paths_run(const SweepConfig& c, std::string_view kind) {
  PathsRun r;
  const std::string_view base = kind.substr(0, kind.find(':'));
  for (const Path& p : c.paths) {
    if (p == Path::gather) r.gather = true;
    if (!p.is_plugin() || c.plugins_not_called.contains(p.plugin)) continue;
    for (const auto& plugin : c.plugins)
      if (plugin->name() == p.plugin && plugin->backend() == base &&
          plugin->layout() == PoolLayout::hnd)
        r.hnd = true;
  }
  return r;
}

// What the backend keeps on the host while `w` is prepared (cpu_backend.cpp): the workload,
// its outputs, the gather workspace once a gather call ran, a plugin's head-major pools. A CUDA
// backend lets its host copy go once uploaded.
std::int64_t held_bytes(const Workload& w, std::string_view kind, const PathsRun& paths) {
  if (!is_cpu(kind)) return 0;
  std::int64_t bytes =
      built_bytes(w) + resident(w.replicas * w.io_elements() * std::int64_t(element_size(w.dtype)));
  if (paths.gather) bytes += 2 * resident(w.kv_bytes_per_call() / 2);
  if (paths.hnd)
    bytes += 2 * resident(w.pool_elements() * std::int64_t(element_size(w.kv_dtype())));
  return bytes;
}

// What a CPU backend holds through a cold sweep beside its workload: the one-block primer
// (cpu_backend.cpp, prime) and, where lines cannot be evicted, the flush's write buffer.
std::int64_t cold_extras(const SweepConfig& c, std::string_view kind, const PathsRun& paths) {
  if (!is_cpu(kind) || c.sampling.cache != CacheState::cold) return 0;
  const std::int64_t flush =
      cpu::flush_method() == "write" ? resident(cpu::last_level_cache_bytes() * 5 / 4) : 0;
  return held_bytes(c.workload(c.shape.block_size), kind, paths) + flush;
}

std::int64_t ceiling_bytes(std::string_view kind) {
  if (!is_cpu(kind)) return 0;  // a GPU's ceilings are measured in device memory
  return resident(
      cpu::ceiling_buffer_bytes(cpu::last_level_cache_bytes(), std::int64_t(page_size())));
}

std::string label(const Workload& w) {
  std::string s = "L=" + std::to_string(w.length) + ", B=" + std::to_string(w.shape.batch);
  if (w.replicas > 1) s += ", " + std::to_string(w.replicas) + " replicas";
  return s;
}

void keep_larger(MemoryPeak& peak, std::int64_t bytes, const std::string& when) {
  if (bytes > peak.bytes) peak = {bytes, when};
}

// Whether a ceiling may be measured while `grid`'s step k is prepared: after the sweep, on the
// last length where no later round was taken (one round, or a contended or out-of-budget
// sweep), else where the rounds ended; the rounds walk the grid back and forth, so the second
// ends on the first length.
bool held_at_ceiling(std::size_t k, std::size_t steps, int rounds) {
  return k + 1 == steps || (k == 0 && rounds >= 2);
}

// The moments of one grid workload: built, then held (and measured beside when `ceiling`).
void step_moments(MemoryPeak& peak, const SweepConfig& c, std::string_view kind,
                  const PathsRun& paths, const Workload& w, bool ceiling) {
  const std::int64_t extras = kProcessBaseBytes + cold_extras(c, kind, paths);
  keep_larger(peak, extras + built_bytes(w), label(w) + " built");
  keep_larger(peak, extras + held_bytes(w, kind, paths), label(w) + " held");
  if (ceiling)
    keep_larger(peak, extras + held_bytes(w, kind, paths) + ceiling_bytes(kind),
                label(w) + " held while the memory ceiling is measured");
}

}  // namespace

std::int64_t physical_memory_bytes() {
  return std::int64_t(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
}

std::int64_t host_memory_limit(std::int64_t memory_bytes) {
  return memory_bytes / 5 * 4;
}

MemoryPeak backend_peak(const SweepConfig& c, std::string_view kind,
                        std::span<const Workload> grid) {
  const PathsRun paths = paths_run(c, kind);
  MemoryPeak peak{kProcessBaseBytes + ceiling_bytes(kind), "the memory ceiling measured"};
  // The checks (verify.cpp): the reference is computed on the workload as built, and it and a
  // path's result are held while the backend holds the workload.
  Workload v = c.workload(0);
  for (std::int64_t len : verification_lengths(c)) {
    v.length = len;
    const std::int64_t f64 = 2 * f64_output_bytes(v);
    keep_larger(peak, kProcessBaseBytes + built_bytes(v) + f64, label(v) + " built to verify");
    keep_larger(peak, kProcessBaseBytes + held_bytes(v, kind, paths) + f64,
                label(v) + " held to verify");
  }
  const int rounds = c.rounds_on(std::string(kind));
  for (std::size_t k = 0; k < grid.size(); ++k)
    step_moments(peak, c, kind, paths, grid[k], held_at_ceiling(k, grid.size(), rounds));
  return peak;
}

MemoryPeak step_peak(const SweepConfig& c, std::string_view kind, const Workload& w) {
  MemoryPeak peak;
  step_moments(peak, c, kind, paths_run(c, kind), w, true);
  return peak;
}

MemoryPeak run_peak(const SweepConfig& c, std::int64_t length) {
  std::vector<Workload> grid;
  if (c.auto_lengths)
    for (std::int64_t len = kAutoFirstLength; len <= length; len *= kAutoLengthFactor)
      grid.push_back(c.workload(len));
  else
    for (std::int64_t len : c.lengths)
      if (len <= length) grid.push_back(c.workload(len));
  // One backend at a time, except several CUDA devices, swept at once (sweep.cpp).
  const std::vector<std::string> names = backend_names(c.backend, c.devices);
  const auto devices = std::count_if(names.begin(), names.end(), is_device_backend);
  MemoryPeak peak;
  for (const std::string& name : names) {
    MemoryPeak one = backend_peak(c, name, grid);
    if (is_device_backend(name)) {
      one.bytes = kProcessBaseBytes + (one.bytes - kProcessBaseBytes) * devices;
      one.when += " on each of " + std::to_string(devices) + " devices";
    }
    keep_larger(peak, one.bytes, one.when);
  }
  return peak;
}

void require_host_memory(const MemoryPeak& peak, std::int64_t memory_bytes) {
  const std::int64_t limit = host_memory_limit(memory_bytes);
  if (peak.bytes <= limit) return;
  std::ostringstream os;
  os.precision(4);
  os << "the run needs " << double(peak.bytes) << " bytes of host memory at its peak (" << peak.when
     << "); at most " << double(limit) << " can be used here";
  throw InputError(os.str());
}

}  // namespace readbench
