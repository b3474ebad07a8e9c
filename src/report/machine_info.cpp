#include "report/machine_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace readbench {

namespace {
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream f(file);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}
}  // namespace

HostInfo describe_host() {
  HostInfo h;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  utsname u{};
  if (::uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  h.cpu_model = proc_field("/proc/cpuinfo", "model name");
  if (h.cpu_model.empty()) h.cpu_model = "unknown";
  h.cpu_cores = int(std::thread::hardware_concurrency());
  const std::string mem = proc_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem.empty()) h.memory_bytes = std::stoll(mem) * 1024;
  return h;
}

}  // namespace readbench
