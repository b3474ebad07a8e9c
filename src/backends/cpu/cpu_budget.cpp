#include "backends/cpu/cpu_budget.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/enum_names.hpp"

namespace readbench::cpu {

namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

std::optional<long long> integer(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

[[noreturn]] void malformed(std::string_view what, std::string_view text) {
  throw CgroupFormatError(std::string(what) + ": cannot read \"" + std::string(trim(text)) + "\"");
}

long long period_of(std::string_view what, std::string_view text) {
  const auto period = integer(trim(text));
  if (!period || *period <= 0) malformed(what, text);
  return *period;
}

std::optional<std::string> read_text(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The directories of a cgroup path under `top`, deepest first, `top` itself last.
std::vector<fs::path> up_to(const fs::path& top, std::string_view cgroup) {
  std::vector<fs::path> dirs;
  fs::path dir = top;
  dirs.push_back(dir);
  for (std::string_view part : split(cgroup, '/'))
    if (!part.empty() && part != "." && part != "..") dirs.push_back(dir /= std::string(part));
  std::reverse(dirs.begin(), dirs.end());
  return dirs;
}

using Quota = std::optional<std::pair<double, std::string>>;

void keep_tighter(Quota& best, std::optional<double> cpus, const fs::path& file) {
  if (cpus && (!best || *cpus < best->first)) best = std::make_pair(*cpus, file.string());
}

Quota v2_quota(std::string_view cgroup, const fs::path& root) {
  Quota best;
  for (const fs::path& dir : up_to(root, cgroup)) {
    const auto text = read_text(dir / "cpu.max");
    if (!text) continue;
    try {
      keep_tighter(best, parse_cpu_max(*text), dir / "cpu.max");
    } catch (const CgroupFormatError&) {
      // A file the kernel did not write this way sets no quota we can trust.
    }
  }
  return best;
}

Quota v1_quota(std::string_view cgroup, const fs::path& root) {
  Quota best;
  for (const char* mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
    if (!fs::is_directory(root / mount)) continue;
    for (const fs::path& dir : up_to(root / mount, cgroup)) {
      const auto quota = read_text(dir / "cpu.cfs_quota_us");
      const auto period = read_text(dir / "cpu.cfs_period_us");
      if (!quota || !period) continue;
      try {
        keep_tighter(best, parse_cfs_quota(*quota, *period), dir / "cpu.cfs_quota_us");
      } catch (const CgroupFormatError&) {
        // As for cpu.max: no quota from a file that does not read as the kernel writes it.
      }
    }
    break;
  }
  return best;
}

}  // namespace

std::string_view to_string(CpuLimit l) {
  static constexpr Named<CpuLimit> kNames[] = {{CpuLimit::affinity, "affinity"},
                                               {CpuLimit::quota, "quota"}};
  return name_in(kNames, l);
}

std::optional<double> parse_cpu_max(std::string_view text) {
  std::vector<std::string_view> fields;
  for (std::string_view f : split(trim(text), ' '))
    if (!f.empty()) fields.push_back(f);
  if (fields.size() != 2) malformed("cpu.max", text);
  const long long period = period_of("cpu.max", fields[1]);
  if (fields[0] == "max") return std::nullopt;
  const auto quota = integer(fields[0]);
  if (!quota || *quota <= 0) malformed("cpu.max", text);
  return double(*quota) / double(period);
}

std::optional<double> parse_cfs_quota(std::string_view quota_us, std::string_view period_us) {
  const long long period = period_of("cpu.cfs_period_us", period_us);
  const auto quota = integer(trim(quota_us));
  if (quota && *quota == -1) return std::nullopt;  // the kernel's "no limit"
  if (!quota || *quota <= 0) malformed("cpu.cfs_quota_us", quota_us);
  return double(*quota) / double(period);
}

std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup,
                                       std::string_view controller) {
  for (std::string_view line : split(proc_self_cgroup, '\n')) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    const std::string path(trim(line.substr(b + 1)));
    if (controller.empty()) {
      if (id == "0" && controllers.empty()) return path;
      continue;
    }
    for (std::string_view c : split(controllers, ','))
      if (c == controller) return path;
  }
  return std::nullopt;
}

CpuBudget budget_of(int affinity_cpus, std::optional<double> quota_cpus) {
  CpuBudget b;
  b.affinity_cpus = std::max(1, affinity_cpus);
  b.quota_cpus = quota_cpus;
  b.cpus = b.affinity_cpus;
  if (quota_cpus && std::floor(*quota_cpus) < b.cpus) {
    b.cpus = std::max(1, int(std::floor(*quota_cpus)));
    b.limited_by = CpuLimit::quota;
  }
  return b;
}

std::optional<std::pair<double, std::string>> read_cgroup_quota(const fs::path& proc_self_cgroup,
                                                                const fs::path& cgroup_root) {
  const auto text = read_text(proc_self_cgroup);
  if (!text) return std::nullopt;
  if (const auto v2 = cgroup_path(*text, ""))
    if (auto q = v2_quota(*v2, cgroup_root)) return q;
  if (const auto v1 = cgroup_path(*text, "cpu")) return v1_quota(*v1, cgroup_root);
  return std::nullopt;
}

int affinity_cpu_count() {
  // The mask may be wider than cpu_set_t's 1024 CPUs: grow it until the kernel accepts it.
  for (int n = 1024; n <= (1 << 20); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) break;
    const std::size_t size = CPU_ALLOC_SIZE(n);
    const int rc = sched_getaffinity(0, size, set);
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    const int err = errno;
    CPU_FREE(set);
    if (rc == 0) return std::max(1, count);
    if (err != EINVAL) break;
  }
  return std::max(1, int(std::thread::hardware_concurrency()));
}

CpuBudget available_cpus() {
  const auto quota = read_cgroup_quota("/proc/self/cgroup", "/sys/fs/cgroup");
  CpuBudget b =
      budget_of(affinity_cpu_count(), quota ? std::optional<double>(quota->first) : std::nullopt);
  if (quota) b.quota_file = quota->second;
  return b;
}

}  // namespace readbench::cpu
