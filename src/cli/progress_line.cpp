#include "cli/progress_line.hpp"

#include <unistd.h>

#include <iostream>

namespace readbench::cli {

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(std::string_view message) {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << message << std::flush;
  shown_ = true;
}

void ProgressLine::done() {
  if (enabled_ && shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace readbench::cli
