#pragma once
// A progress line on stderr, only when stderr is a terminal; done() or the destructor clears
// it, so an error message never lands on the end of a progress line.
#include <string_view>

namespace readbench::cli {

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine() { done(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void show(std::string_view message);
  void done();

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace readbench::cli
