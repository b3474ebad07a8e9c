#pragma once
// How many CPUs this process may really use: the affinity mask bounded by the cgroup CPU
// quota. The default thread count, and any bound on --threads, start from here.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace readbench::cpu {

// A cgroup file whose text is not what the kernel writes.
class CgroupFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which bound set the number of CPUs.
enum class CpuLimit { affinity, quota };
std::string_view to_string(CpuLimit l);

struct CpuBudget {
  int cpus = 1;                      // max(1, min(affinity_cpus, floor(quota_cpus)))
  int affinity_cpus = 1;             // CPUs in the sched_getaffinity mask
  std::optional<double> quota_cpus;  // cgroup quota / period; none: no quota
  std::string quota_file;            // where the quota was read, empty when none was found
  CpuLimit limited_by = CpuLimit::affinity;
};

// cgroup v2 cpu.max, "QUOTA PERIOD" or "max PERIOD": QUOTA / PERIOD CPUs, none for "max".
std::optional<double> parse_cpu_max(std::string_view text);
// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us: quota / period CPUs, none for -1.
std::optional<double> parse_cfs_quota(std::string_view quota_us, std::string_view period_us);
// The cgroup path of a controller in /proc/self/cgroup text ("ID:CONTROLLERS:PATH" lines); an
// empty controller asks for the v2 entry ("0::PATH"). None when the controller is not listed.
std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup,
                                       std::string_view controller);

// Whole CPUs of a quota, rounded down: a thread past the quota's whole CPUs does not add a
// share of each period, it gets the group throttled to the end of the period (CFS bandwidth
// control), a stall of up to a period (100 ms by default) in the middle of a timed call.
CpuBudget budget_of(int affinity_cpus, std::optional<double> quota_cpus);

// The tightest quota on the process's cgroup or any cgroup above it, read under cgroup_root
// (v2 cpu.max, else v1 cpu.cfs_quota_us/cpu.cfs_period_us). Missing or unreadable files mean
// no quota there. Returns the quota in CPUs and the file it came from.
std::optional<std::pair<double, std::string>> read_cgroup_quota(
    const std::filesystem::path& proc_self_cgroup, const std::filesystem::path& cgroup_root);

// CPUs in this thread's affinity mask (at least 1).
int affinity_cpu_count();

// The budget of this process: affinity mask and cgroup quota from /proc and /sys/fs/cgroup.
CpuBudget available_cpus();

}  // namespace readbench::cpu
