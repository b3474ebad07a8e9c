// The GPU monitor's reading of NVML's clock-event reasons, and its behaviour where NVML or the
// device is missing (as on a machine without a GPU: it must see nothing and say why).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/cuda/gpu_monitor.hpp"

using namespace readbench::cuda;

TEST_CASE("an idle GPU or a clock the administrator set is no slowdown") {
  CHECK(slowdown_reasons(0).empty());
  CHECK(slowdown_reasons(0x1).empty());    // GpuIdle
  CHECK(slowdown_reasons(0x2).empty());    // applications clocks setting
  CHECK(slowdown_reasons(0x100).empty());  // display clock setting
}

TEST_CASE("power caps and thermal or hardware slowdowns are named") {
  CHECK(slowdown_reasons(0x4) == std::vector<std::string>{"software power cap"});
  CHECK(slowdown_reasons(0x1 | 0x20 | 0x40) ==
        std::vector<std::string>{"software thermal slowdown", "hardware thermal slowdown"});
  CHECK(slowdown_reasons(0x8 | 0x80) ==
        std::vector<std::string>{"hardware slowdown", "hardware power brake"});
}

TEST_CASE("a monitor for a device NVML does not know sees nothing and says why") {
  GpuMonitor m("0000:ff:1f.7");
  if (m.available()) {
    MESSAGE("NVML knows a device at 0000:ff:1f.7 here; nothing to check");
    return;
  }
  CHECK_FALSE(m.unavailable_reason().empty());
  m.sample();
  CHECK(m.conditions().empty());
}
