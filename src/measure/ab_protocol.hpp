#pragma once
// The private protocol between `readbench ab` and its two workers (`readbench ab-worker`): one
// JSON object a line, requests on the worker's stdin, replies on its stdout. The worker speaks
// first: {"readbench_ab_protocol": N, "version": ..., "git_commit": ...}; a parent and a worker
// of different N refuse each other. Raise kAbProtocol with any change to a message below.
//
// A worker serves one arm, or both arms of one binary (then a CPU workload is built once and
// both arms read it in place). Requests ("op") and their replies; any reply may instead be
// {"error": WHY} (the worker stays up; a failed path stays failed). Every request after setup
// names its arm ("arm": "base" or "head").
//   setup   {arms: [{role, config}...]} -> by role: the backend's facts, its read ceiling and
//                               each path's checks
//   bytes   {arm, length}    -> memory a workload of that length takes: {"host", "backend"}
//   prepare {arm, length}    -> workload built and warmed: {"replicas", "shared", "paths":
//                               [{"path", "calls_per_sample"} or {"path", "error"}...]}
//   sample  {arm, length, path, seconds} -> {"s": [seconds per call...], "disturbed": [0|1...]}
//   ceiling {arm}            -> {"read_gbps", "copy_gbps", "buffer_bytes", "device_conditions"}
//   quit    {}               -> (the worker exits 0)
#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace readbench {

inline constexpr int kAbProtocol = 2;
inline constexpr const char* kAbHelloKey = "readbench_ab_protocol";

// Writes `message` and a newline to `fd`, whole. Throws OutputError.
void write_message(int fd, const nlohmann::json& message);

// Reads from `fd` line by line, with what a read brought past the line kept for the next.
class MessageReader {
 public:
  explicit MessageReader(int fd) : fd_(fd) {}
  // The next line parsed as JSON; nullopt at end of input. `timeout` bounds the wait (none:
  // wait forever); past it throws TimedOut. A signal (core/interrupt.hpp) during the wait
  // throws Interrupted. Throws InputError on a line that is not a JSON object.
  std::optional<nlohmann::json> next(std::optional<std::chrono::milliseconds> timeout = {});

  struct TimedOut : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace readbench
