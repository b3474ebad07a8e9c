// What a report says about the machine: the processor named from /proc/cpuinfo on x86 and on
// aarch64, the last-level cache from sysfs or an assumption that says so, the architecture
// and kernel copy in the report and in compare.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backends/cpu/cache_topology.hpp"
#include "report/compare.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
namespace fs = std::filesystem;

namespace {
// A fresh directory standing in for /sys/devices/system/cpu, removed at the end of the test.
struct FakeSysfs : readbench::test::TempDir {
  void cache(const std::string& cpu, int index, int level, const std::string& size,
             const std::string& shared) const {
    const fs::path dir = path / cpu / "cache" / ("index" + std::to_string(index));
    fs::create_directories(dir);
    std::ofstream(dir / "level") << level << "\n";
    std::ofstream(dir / "size") << size << "\n";
    std::ofstream(dir / "shared_cpu_list") << shared << "\n";
  }
};
}  // namespace

TEST_CASE("an x86 processor is named by its model name line") {
  CHECK(cpu_model_from_cpuinfo("processor\t: 0\nmodel\t\t: 85\nmodel name\t: Test Xeon\n") ==
        "Test Xeon");
}

TEST_CASE("an Arm Neoverse is named from its implementer and part codes") {
  const std::string text =
      "processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
      "CPU variant\t: 0x0\nCPU part\t: 0xd4f\nCPU revision\t: 0\n";
  CHECK(cpu_model_from_cpuinfo(text) == "Arm Neoverse V2");
}

TEST_CASE("an unknown aarch64 core keeps its codes") {
  CHECK(cpu_model_from_cpuinfo("CPU implementer\t: 0x41\nCPU part\t: 0xfff\n") == "Arm part 0xfff");
  CHECK(cpu_model_from_cpuinfo("CPU implementer\t: 0x61\nCPU part\t: 0x022\n") ==
        "implementer 0x61 part 0x022");
  CHECK(cpu_model_from_cpuinfo("processor\t: 0\n") == "unknown");
}

TEST_CASE("the last-level cache counts each instance of the highest level once") {
  FakeSysfs sys;
  for (const char* cpu : {"cpu0", "cpu1"}) {
    sys.cache(cpu, 0, 1, "64K", cpu);
    sys.cache(cpu, 1, 2, "1024K", cpu);
    sys.cache(cpu, 2, 3, "32M", "0-1");
  }
  sys.cache("cpu2", 0, 3, "32M", "2-3");
  const cpu::LastLevelCache c = cpu::read_last_level_cache(sys.path);
  CHECK(c.bytes == std::int64_t(64) << 20);
  CHECK(c.source == "sysfs");
}

TEST_CASE("a system level cache at level 2 only is read too (no L3 listed)") {
  FakeSysfs sys;
  sys.cache("cpu0", 0, 1, "64K", "0");
  sys.cache("cpu0", 1, 2, "2048K", "0");
  const cpu::LastLevelCache c = cpu::read_last_level_cache(sys.path);
  CHECK(c.bytes == std::int64_t(2) << 20);
}

TEST_CASE("where sysfs lists no caches 32 MiB is assumed and the source says so") {
  FakeSysfs sys;
  fs::create_directories(sys.path / "cpu0");
  fs::create_directories(sys.path / "cpu1" / "cache");
  const cpu::LastLevelCache c = cpu::read_last_level_cache(sys.path);
  CHECK(c.bytes == std::int64_t(32) << 20);
  CHECK(c.source == "assumed 32 MiB: sysfs lists no caches");
  CHECK(cpu::read_last_level_cache(sys.path / "absent").source == c.source);
}

TEST_CASE("the report names the architecture and the CPU kernels, and compare shows them") {
  RunResult run = test::synthetic_run();
  run.backends[0].details.kernels = "arm-bf16";
  HostInfo host = test::synthetic_host();
  host.arch = "aarch64";
  const Json j = build_report(run, host, "2026-01-02T03:04:05Z");
  CHECK(j["machine"]["cpu"]["arch"] == "aarch64");
  CHECK(j["backends"][0]["kernels"] == "arm-bf16");
  const Report r = parse_report(j.dump(), "arm.json");
  CHECK(r.cpu == "aarch64, CPU kernels arm-bf16");
  const std::string md = format_compare_markdown(compare_reports({r, r}));
  CHECK(md.find("CPU of arm.json (testhost): aarch64, CPU kernels arm-bf16.") != std::string::npos);
}

TEST_CASE("the report says how a GPU's timed calls were launched, and only where a backend says") {
  RunResult run = test::synthetic_run();
  run.backends[0].details.launch = "batches replayed from a CUDA graph";
  const Json j = build_report(run, test::synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(j["backends"][0]["launch"] == "batches replayed from a CUDA graph");
  const Json plain = build_report(test::synthetic_run(), test::synthetic_host(), "x");
  CHECK(!plain["backends"][0].contains("launch"));
}

TEST_CASE("a report without the architecture or kernels still reads, and compare omits them") {
  Json j = test::synthetic_report();
  j["machine"]["cpu"].erase("arch");
  const Report r = parse_report(j.dump(), "old.json");
  CHECK(r.cpu.empty());
  CHECK(format_compare_markdown(compare_reports({r, r})).find("CPU of") == std::string::npos);
}
