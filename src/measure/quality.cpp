#include "measure/quality.hpp"

#include <fstream>
#include <sstream>

namespace readbench {

std::optional<LoadSample> parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  LoadSample s;
  double fifteen = 0;
  std::string tasks;
  if (!(in >> s.one_minute >> s.five_minutes >> fifteen >> tasks)) return std::nullopt;
  const auto slash = tasks.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  try {
    s.runnable = std::stoi(tasks.substr(0, slash));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return s;
}

std::optional<LoadSample> read_load() {
  std::ifstream f("/proc/loadavg");
  std::string text;
  if (!std::getline(f, text)) return std::nullopt;
  return parse_loadavg(text);
}

}  // namespace readbench
