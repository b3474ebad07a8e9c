#pragma once
// The host a report was measured on.
#include <cstdint>
#include <string>

namespace readbench {

struct HostInfo {
  std::string hostname;
  std::string os;         // kernel name, release and machine, as uname reports them
  std::string cpu_model;  // /proc/cpuinfo "model name"
  int cpu_cores = 0;      // logical processors available
  std::int64_t memory_bytes = 0;
};

HostInfo describe_host();

}  // namespace readbench
