#include "report/machine_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace readbench {

namespace {
// The value of the first "key : value" line whose key is `key`.
std::string field(std::istream& in, std::string_view key) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.find_first_not_of(" \t", key.size()) != colon) continue;  // a longer key
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::string field(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  return field(in, key);
}

std::string file_field(const char* file, std::string_view key) {
  std::ifstream f(file);
  return field(f, key);
}

// Arm's own cores among the hosts of GPUs and cloud instances (Arm's technical reference
// manuals, MIDR_EL1.PartNum).
const char* arm_part_name(unsigned part) {
  static constexpr std::pair<unsigned, const char*> kParts[] = {
      {0xd0b, "Cortex-A76"},  {0xd0c, "Neoverse N1"},   {0xd40, "Neoverse V1"},
      {0xd41, "Cortex-A78"},  {0xd44, "Cortex-X1"},     {0xd49, "Neoverse N2"},
      {0xd4f, "Neoverse V2"}, {0xd83, "Neoverse V3AE"}, {0xd84, "Neoverse V3"},
      {0xd8e, "Neoverse N3"}};
  for (const auto& [code, name] : kParts)
    if (code == part) return name;
  return nullptr;
}
}  // namespace

std::string cpu_model_from_cpuinfo(const std::string& text) {
  std::string model = field(text, "model name");
  if (!model.empty()) return model;
  const std::string implementer = field(text, "CPU implementer");
  const std::string part = field(text, "CPU part");
  if (implementer.empty() || part.empty()) return "unknown";
  if (implementer == "0x41") {
    unsigned code = 0;
    std::istringstream(part) >> std::hex >> code;
    if (const char* name = arm_part_name(code)) return std::string("Arm ") + name;
    return "Arm part " + part;
  }
  return "implementer " + implementer + " part " + part;
}

HostInfo describe_host() {
  HostInfo h;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  utsname u{};
  if (::uname(&u) == 0) {
    h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    h.arch = u.machine;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::ostringstream text;
  text << cpuinfo.rdbuf();
  h.cpu_model = cpu_model_from_cpuinfo(text.str());
  h.cpu_cores = int(std::thread::hardware_concurrency());
  const std::string mem = file_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem.empty()) h.memory_bytes = std::stoll(mem) * 1024;
  return h;
}

}  // namespace readbench
