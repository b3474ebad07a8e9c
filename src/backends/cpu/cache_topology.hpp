#pragma once
// The host's last-level cache, which sizes the read-ceiling buffer and, where lines cannot be
// evicted, the cold-cache flush's write.
#include <cstdint>
#include <filesystem>
#include <string>

namespace readbench::cpu {

// The largest cache level, every instance of it counted, and where the figure came from.
struct LastLevelCache {
  std::int64_t bytes = 0;
  std::string source;  // "sysfs", or the assumption made and why
};

// Reads cpu*/cache/index*/{level,size,shared_cpu_list} under `cpu_dir` (sysfs:
// /sys/devices/system/cpu). x86 kernels fill it from CPUID; aarch64 kernels only from the
// firmware's tables (ACPI PPTT or the device tree), which some machines and most emulators
// leave empty: then 32 MiB is assumed, and the source says so.
LastLevelCache read_last_level_cache(const std::filesystem::path& cpu_dir);

// read_last_level_cache of this machine's sysfs.
const LastLevelCache& last_level_cache();
std::int64_t last_level_cache_bytes();

}  // namespace readbench::cpu
