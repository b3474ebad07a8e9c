#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/stream_bandwidth.hpp"
#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "measure/run_memory.hpp"

using namespace readbench;

namespace {

// A hot CPU run of the default shape (bf16, 8 KV heads of 128: 4 KiB of K and V a token) at
// L = 65536: 256 MiB of pools, 2 MiB multiples whatever the page size.
SweepConfig hot_run(std::vector<Path> paths) {
  SweepConfig c;
  c.backend = BackendChoice::cpu;
  c.paths = std::move(paths);
  c.auto_lengths = false;
  c.lengths = {1024, 65536};
  c.rounds = 1;
  c.sampling.cache = CacheState::hot;
  return c;
}

constexpr std::int64_t kPools = std::int64_t(256) << 20;  // K and V at L = 65536
constexpr std::int64_t kSmall = 8192 + 8192 + 4096 * 4;   // query, output, block table

std::int64_t ceiling() {
  return cpu::ceiling_buffer_bytes(cpu::last_level_cache_bytes(), std::int64_t(page_size()));
}

}  // namespace

TEST_CASE("a run's peak is its longest workload held with the gather workspace and the ceiling") {
  const MemoryPeak peak = run_peak(hot_run({Path::gather, Path::fused}), 65536);
  CHECK(peak.bytes == kProcessBaseBytes + kPools + kSmall + kPools + ceiling());
  CHECK(peak.when == "L=65536, B=1 held while the memory ceiling is measured");
}

TEST_CASE("a run without the gather path counts no gather workspace") {
  const MemoryPeak peak = run_peak(hot_run({Path::fused}), 65536);
  CHECK(peak.bytes == kProcessBaseBytes + kPools + kSmall + ceiling());
}

TEST_CASE("a run's peak counts the lengths up to the one asked") {
  const SweepConfig c = hot_run({Path::fused});
  CHECK(run_peak_bytes(c, 1024) < run_peak_bytes(c, 65536));
}

TEST_CASE("a peak past four fifths of the memory is refused with its bytes") {
  const MemoryPeak peak = run_peak(hot_run({Path::gather, Path::fused}), 65536);
  // Room for the pools twice over, not for everything the run holds beside them.
  const std::int64_t memory = peak.bytes;
  CHECK_NOTHROW(require_host_memory(peak, memory * 5 / 4 + 5));
  try {
    require_host_memory(peak, memory);
    FAIL("not refused");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("bytes of host memory at its peak (L=65536, B=1 held") != std::string::npos);
    std::ostringstream figure;
    figure.precision(4);
    figure << "the run needs " << double(peak.bytes) << " bytes";
    CHECK(what.rfind(figure.str(), 0) == 0);
  }
}

TEST_CASE("several CUDA devices count their host sides at once") {
  SweepConfig c = hot_run({Path::fused});
  c.backend = BackendChoice::cuda;
  c.devices = {0};
  const std::int64_t one = run_peak_bytes(c, 65536) - kProcessBaseBytes;
  c.devices = {0, 1};
  CHECK(run_peak_bytes(c, 65536) - kProcessBaseBytes == 2 * one);
  // A device's host side is the workload as built: the upload lets it go.
  CHECK(one == kPools + 8192 + 4096 * 4);
}
