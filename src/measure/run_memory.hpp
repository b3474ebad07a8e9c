#pragma once
// The host memory a run takes at its worst moment, counted buffer by buffer before any of it is
// allocated: what `run` refuses an explicit grid by, where an auto grid stops, and what a
// command running several sweeps at once adds up (one peak each). docs/memory.md lists the
// buffers and the moments they meet.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/shape.hpp"
#include "measure/results.hpp"

namespace readbench {

// Host bytes of a readbench process beside the buffers counted here (code, libraries, thread
// stacks, the heap): peaks measured 6.3 MiB over the buffers on x86-64 Linux (docs/memory.md).
inline constexpr std::int64_t kProcessBaseBytes = std::int64_t(8) << 20;

// The most host memory a run may take: four fifths of `memory_bytes` (this machine's memory,
// or what was available when an auto grid's backend opened), the rest left to the system.
std::int64_t host_memory_limit(std::int64_t memory_bytes);
std::int64_t physical_memory_bytes();

// How much host memory a run holds at one moment, and which moment.
struct MemoryPeak {
  std::int64_t bytes = 0;
  std::string when;  // "L=65536 (2 replicas) built", "... held while a ceiling is measured"
};

// The peak of one backend of kind `kind` ("cpu", "cuda", "cuda:N") running `c` over `grid`, the
// workloads its first round prepares, in order, with their replicas. Counted: its ceiling
// buffer; each verification workload with its f64 reference and result; each grid workload as
// it is built (after the backend let go of the one before) and as the backend then holds it
// (the CPU's outputs, gather workspace and the head-major copy a plugin takes; a CUDA backend
// keeps nothing on the host once uploaded); a cold run's primer and flush buffer; and the
// ceilings measured while a workload is held. kProcessBaseBytes included.
MemoryPeak backend_peak(const SweepConfig& c, std::string_view kind,
                        std::span<const Workload> grid);

// The peak of preparing `w` anywhere in a grid of `c` on `kind`, held while a ceiling is
// measured: what the sweep checks before it builds a length or adds replicas.
MemoryPeak step_peak(const SweepConfig& c, std::string_view kind, const Workload& w);

// The peak of a whole run of `c` whose grid ends at `length`: its explicit lengths up to it, or
// the auto grid's, one replica each (a cold sweep adds replicas only while step_peak allows),
// over every backend it opens, several CUDA devices' host sides at once.
MemoryPeak run_peak(const SweepConfig& c, std::int64_t length);
inline std::int64_t run_peak_bytes(const SweepConfig& c, std::int64_t length) {
  return run_peak(c, length).bytes;
}

// Throws InputError naming the figure when `peak` is over host_memory_limit(memory_bytes).
void require_host_memory(const MemoryPeak& peak, std::int64_t memory_bytes);

}  // namespace readbench
