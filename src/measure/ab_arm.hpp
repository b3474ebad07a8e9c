#pragma once
// The parent side of `readbench ab` (ab_protocol.hpp): one arm's worker process, started from a
// readbench binary, asked one request at a time.
#include <sys/types.h>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/ab_protocol.hpp"

namespace readbench {

class ArmProcess {
 public:
  // Starts `binary ab-worker` and reads its hello. Throws InputError naming the arm (`role`:
  // "base", "head", or "both" for one worker serving both) and the binary when it cannot start, ends or says nothing before its
  // hello, or speaks another protocol version (both versions named).
  ArmProcess(std::string role, std::string binary);
  // Asks the worker to quit; one that does not within a few seconds is killed.
  ~ArmProcess();
  ArmProcess(const ArmProcess&) = delete;
  ArmProcess& operator=(const ArmProcess&) = delete;

  // Sends `request` and returns the reply. Throws InputError naming the arm when the worker
  // ends or does not answer within `timeout`, and for an {"error"} reply (the worker's words).
  nlohmann::json ask(const nlohmann::json& request, std::chrono::milliseconds timeout);

  const std::string& role() const { return role_; }
  const std::string& binary() const { return binary_; }
  const std::string& version() const { return version_; }
  const std::string& git_commit() const { return git_commit_; }

 private:
  std::string who() const;  // "the base arm (BINARY)"
  [[noreturn]] void ended(const std::string& when);
  void stop();

  std::string role_, binary_, version_, git_commit_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_fd_ = -1;
  MessageReader from_worker_{-1};
};

}  // namespace readbench
