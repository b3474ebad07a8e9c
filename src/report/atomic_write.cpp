#include "report/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include "core/errors.hpp"
#include "report/link_target.hpp"
#include "report/standard_output.hpp"

namespace readbench {

namespace {
namespace fs = std::filesystem;

fs::path directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw OutputError("cannot write '" + path + "': " + why);
}

// /proc/<pid>/fd or /proc/<pid>/task/<tid>/fd: what /dev/fd and /proc/self/fd resolve to.
bool is_descriptor_directory(const fs::path& dir) {
  return dir.filename() == "fd" && std::distance(dir.begin(), dir.end()) >= 4 &&
         *std::next(dir.begin()) == "proc";
}

// Whether `path` reaches an open descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a
// link to one), following links one hop at a time. Renaming there would replace the link in
// /dev, or detach a regular file from the descriptor that holds it.
bool names_descriptor(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hop = 0; !ec && hop < 40; ++hop) {  // 40: the kernel's own limit on link hops
    const fs::path dir = fs::canonical(p.parent_path(), ec);
    if (ec) return false;
    if (is_descriptor_directory(dir)) return true;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
    const fs::path target = fs::read_symlink(p, ec);
    p = target.is_absolute() ? target : dir / target;
  }
  return false;
}

// How a target is written: replaced by a rename, or written where it is.
struct Target {
  bool exists = false;
  bool in_place = false;
  mode_t mode = 0;  // of an existing regular file, which its replacement keeps
};

Target examine(const std::string& path) {
  if (path.empty()) throw OutputError("an output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, std::strerror(errno));
    const fs::path dir = directory_of(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(path, "directory '" + dir.string() + "' does not exist");
    if (::access(dir.c_str(), W_OK) != 0) fail(path, std::strerror(errno));
    return {};
  }
  if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  if (S_ISBLK(st.st_mode)) fail(path, "it is a block device");
  if (S_ISSOCK(st.st_mode)) fail(path, "it is a socket");
  // A FIFO or a terminal is someone's open stream: a rename would take its place in the
  // directory, and reach no reader.
  const bool in_place = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || names_descriptor(path);
  if (!in_place && !S_ISREG(st.st_mode)) fail(path, "it is not a regular file");
  const std::string checked = in_place ? path : directory_of(path).string();
  if (::access(checked.c_str(), W_OK) != 0) fail(path, std::strerror(errno));
  return {true, in_place, mode_t(st.st_mode & 07777)};
}

// 0, or the errno of the write that failed.
int write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += std::size_t(n);
  }
  return 0;
}

// Without O_CREAT or O_TRUNC: the target exists and is kept, only written. The file stdout
// already writes (`--json /dev/stdout > out.txt`) goes through stdout, at its position; any
// other regular file behind a descriptor path is appended to, never written over from its start.
void write_in_place(const std::string& path, const std::string& content) {
  struct stat target {
  }, out{};
  if (::stat(path.c_str(), &target) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 &&
      target.st_dev == out.st_dev && target.st_ino == out.st_ino) {
    write_stdout(content);
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(path, std::strerror(errno));
  const int err = write_all(fd, content);
  if (err != 0) {
    ::close(fd);
    fail(path, std::strerror(err));
  }
  if (::close(fd) != 0) fail(path, std::strerror(errno));
}

void replace(const std::string& path, const std::string& content, const Target& target) {
  // A hidden sibling, so the rename stays within one file system; named after the target
  // unless that would pass the longest name a directory holds.
  std::string hidden = ".";
  hidden += fs::path(path).filename().string();
  hidden += ".XXXXXX";
  if (hidden.size() > NAME_MAX) hidden = ".readbench.XXXXXX";
  const std::string tmpl = (directory_of(path) / hidden).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, std::strerror(errno));
  auto give_up = [&](int err) {
    ::close(fd);
    ::unlink(name.data());
    fail(path, std::strerror(err));
  };
  if (const int err = write_all(fd, content); err != 0) give_up(err);
  // mkstemp makes it 0600: a new file gets the mode any file the user creates gets, a
  // replaced one keeps its own.
  mode_t mode = target.mode;
  if (!target.exists) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) give_up(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(name.data());
    fail(path, std::strerror(err));
  }
  if (std::rename(name.data(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(name.data());
    fail(path, std::strerror(err));
  }
  // The rename is durable only once the directory is. A directory we may write but not read
  // cannot be opened to sync: the report is in place, so that is not a failure.
  const int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  const int synced = ::fsync(dir);
  const int err = errno;
  ::close(dir);
  // EINVAL: a file system that does not sync directories.
  if (synced != 0 && err != EINVAL)
    fail(path, std::string("syncing its directory: ") + std::strerror(err));
}

}  // namespace

void check_writable(const std::string& path) {
  if (path != "-") examine(path);
}

bool writes_in_place(const std::string& path) {
  return path == "-" || examine(path).in_place;
}

void write_atomically(const std::string& path, const std::string& content) {
  if (path == "-") return write_stdout(content);
  const Target target = examine(path);
  if (target.in_place) return write_in_place(path, content);
  // A link: the file it names is replaced (or created) and the link kept, as a shell's `>`
  // writes through it (and as the checks that outputs are distinct files see it).
  if (const std::string file = link_target(path); file != path)
    return replace(file, content, examine(file));
  replace(path, content, target);
}

}  // namespace readbench
