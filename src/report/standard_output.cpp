#include "report/standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/errors.hpp"
#include "core/printable.hpp"
#include "plugins/stdout_diversion.hpp"

namespace readbench {

namespace {

// errno is 0 where a stream failed without a system call saying why.
[[noreturn]] void fail(int err) {
  throw OutputError(std::string("cannot write to stdout: ") +
                    (err != 0 ? std::strerror(err) : "write error"));
}

}  // namespace

void write_error_line(std::string_view message) {
  std::cerr << "readbench: " + printable(message) + "\n" << std::flush;
}

void write_stdout(std::string_view text) {
  if (const int fd = own_stdout_fd(); fd != STDOUT_FILENO) {
    // Plugins are loaded: fd 1 and the C and C++ streams on it are theirs, pointed at stderr.
    while (!text.empty()) {
      const ssize_t n = ::write(fd, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail(n < 0 ? errno : 0);
      text.remove_prefix(std::size_t(n));
    }
    return;
  }
  errno = 0;
  std::cout.write(text.data(), std::streamsize(text.size()));
  std::cout.flush();
  if (!std::cout) fail(errno);
}

void hold_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lower descriptors are open, so the pipe's read end lands on `fd`.
    int ends[2];
    if (::pipe(ends) != 0) continue;
    if (ends[0] != fd) {
      ::dup2(ends[0], fd);
      ::close(ends[0]);
    }
    ::close(ends[1]);
  }
}

void close_stdout() {
  if (const int fd = own_stdout_fd(); fd != STDOUT_FILENO) {
    // What plugins printed goes to stderr with the exit-time flush; only readbench's own
    // descriptor is checked.
    if (::close(fd) != 0 && errno != EINTR) fail(errno);
    return;
  }
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) fail(errno);
  // The buffers are empty now, so the exit-time flush writes nothing to the closed fd 1.
  // EINTR: Linux has closed the descriptor anyway.
  if (::close(STDOUT_FILENO) != 0 && errno != EINTR) fail(errno);
}

}  // namespace readbench
