#include "report/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include "core/errors.hpp"

namespace readbench {

namespace {
namespace fs = std::filesystem;

fs::path directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw InputError("cannot write '" + path + "': " + why);
}
}  // namespace

void check_writable(const std::string& path) {
  if (path == "-") return;
  if (path.empty()) throw InputError("an output path is empty");
  const fs::path dir = directory_of(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(path, "directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(path, ec)) fail(path, "it is a directory");
  if (::access(dir.c_str(), W_OK) != 0) fail(path, std::strerror(errno));
}

void write_atomically(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content << std::flush;
    return;
  }
  check_writable(path);
  // A hidden sibling, so the rename stays within one file system.
  std::string hidden = fs::path(path).filename().string();
  hidden.insert(hidden.begin(), '.');
  hidden.append(".XXXXXX");
  const std::string tmpl = (directory_of(path) / hidden).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(name.data());
      fail(path, why);
    }
    done += std::size_t(n);
  }
  // Readable like any file the user creates (mkstemp makes it 0600).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(name.data());
    fail(path, why);
  }
  if (std::rename(name.data(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(name.data());
    fail(path, why);
  }
}

}  // namespace readbench
