#include "backends/cpu/cache_topology.hpp"

#include <cctype>
#include <fstream>
#include <map>

namespace readbench::cpu {

namespace {

std::int64_t parse_cache_size(const std::string& text) {
  std::int64_t v = 0;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    v = v * 10 + (text[i++] - '0');
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) v *= 1024;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) v *= 1024 * 1024;
  return v;
}

}  // namespace

LastLevelCache read_last_level_cache(const std::filesystem::path& cpu_dir) {
  // Every instance of the highest cache level counts (one per socket, or per CCD on some
  // processors): a flush that covers only cpu0's would leave the others warm.
  namespace fs = std::filesystem;
  int top_level = 0;
  std::map<std::string, std::int64_t> instances;  // shared_cpu_list -> size, at top_level
  std::error_code ec;
  for (const auto& cpu : fs::directory_iterator(cpu_dir, ec)) {
    const std::string name = cpu.path().filename().string();
    if (name.rfind("cpu", 0) != 0 || name.size() < 4 ||
        !std::isdigit(static_cast<unsigned char>(name[3])))
      continue;
    for (int index = 0; index < 8; ++index) {
      const fs::path dir = cpu.path() / "cache" / ("index" + std::to_string(index));
      std::ifstream level_file(dir / "level"), size_file(dir / "size"),
          shared_file(dir / "shared_cpu_list");
      int level = 0;
      std::string size_text, shared;
      if (!(level_file >> level) || !(size_file >> size_text)) continue;
      std::getline(shared_file, shared);
      if (level > top_level) {
        top_level = level;
        instances.clear();
      }
      if (level == top_level)
        instances[shared.empty() ? name : shared] = parse_cache_size(size_text);
    }
  }
  std::int64_t total = 0;
  for (const auto& [cpus, bytes] : instances) total += bytes;
  if (total > 0) return {total, "sysfs"};
  // 32 MiB: more than the last level of most client and many server parts. It sizes the
  // cold flush only where lines cannot be evicted (cache_flusher.hpp); the ceilings' buffer is
  // 256 MiB anyway.
  return {std::int64_t(32) << 20, "assumed 32 MiB: sysfs lists no caches"};
}

const LastLevelCache& last_level_cache() {
  static const LastLevelCache cache = read_last_level_cache("/sys/devices/system/cpu");
  return cache;
}

std::int64_t last_level_cache_bytes() {
  return last_level_cache().bytes;
}

}  // namespace readbench::cpu
