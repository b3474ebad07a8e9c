#pragma once
// The host a report was measured on.
#include <cstdint>
#include <string>

namespace readbench {

struct HostInfo {
  std::string hostname;
  std::string os;         // kernel name, release and machine, as uname reports them
  std::string arch;       // the machine as uname reports it: "x86_64", "aarch64"
  std::string cpu_model;  // cpu_model_from_cpuinfo of /proc/cpuinfo
  int cpu_cores = 0;      // logical processors available
  std::int64_t memory_bytes = 0;
};

HostInfo describe_host();

// The processor's name from the text of /proc/cpuinfo: x86's "model name"; aarch64 kernels
// give none, only the "CPU implementer" and "CPU part" codes of the first processor (MIDR),
// named here where known ("Arm Neoverse V2") and written as codes otherwise ("Arm part
// 0xd99", "implementer 0x51 part 0x001"). "unknown" where neither is there.
std::string cpu_model_from_cpuinfo(const std::string& text);

}  // namespace readbench
