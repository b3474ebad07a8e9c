#include "measure/ab_protocol.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/interrupt.hpp"

namespace readbench {

namespace {

// A reply holds a few thousand slice times at most; anything far longer is not this protocol.
constexpr std::size_t kMaxLine = 64u << 20;

}  // namespace

void write_message(int fd, const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw OutputError(std::string("the ab protocol could not be written: ") +
                        std::strerror(errno));
    done += std::size_t(n);
  }
}

std::optional<nlohmann::json> MessageReader::next(std::optional<std::chrono::milliseconds> timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = timeout ? Clock::now() + *timeout : Clock::time_point::max();
  while (true) {
    if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        throw InputError("the ab protocol carried a line that is not a JSON object");
      return j;
    }
    if (buffer_.size() > kMaxLine) throw InputError("the ab protocol carried a line over 64 MiB");
    int wait_ms = -1;
    if (timeout) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) throw TimedOut("no answer in time");
      wait_ms = int(std::min<long long>(left.count(), 1000));
    } else {
      wait_ms = 1000;  // wake now and then to see a signal
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    throw_if_interrupted();
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw InputError(std::string("the ab protocol: poll failed: ") + std::strerror(errno));
    if (ready == 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(std::string("the ab protocol could not be read: ") + std::strerror(errno));
    if (n == 0) {
      if (!buffer_.empty()) throw InputError("the ab protocol ended inside a line");
      return std::nullopt;
    }
    buffer_.append(chunk, std::size_t(n));
  }
}

}  // namespace readbench
