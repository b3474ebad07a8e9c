// Where reports go: a regular file is replaced by a rename and keeps its mode; a FIFO, a
// character device or a descriptor path is written in place and stays what it was; other
// special files and an empty path are refused; an output naming an input is caught.
// Device nodes are made with mknod in a temporary directory, never taken from /dev.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "core/errors.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::TempDir;
using readbench::test::error_message;
namespace fs = std::filesystem;

namespace {


std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode;
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, std::size_t(n));
  return out;
}

}  // namespace

TEST_CASE("a report into a FIFO reaches its reader and the FIFO stays") {
  TempDir dir;
  const std::string fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_NOTHROW(check_writable(fifo));  // opens nothing, so no reader is needed yet
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  write_atomically(fifo, "{\"a\": 1}\n");
  reader.join();
  CHECK(received == "{\"a\": 1}\n");
  CHECK(S_ISFIFO(mode_of(fifo)));
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("a report into a character device is written there and the node stays") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: mknod of a character device needs root");
    return;
  }
  TempDir dir;
  const std::string node = dir / "null";
  REQUIRE(::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);  // the null device
  CHECK_NOTHROW(write_atomically(node, "discarded\n"));
  struct stat st {};
  REQUIRE(::stat(node.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == ::makedev(1, 3));
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("a descriptor path is written in place, not renamed over") {
  // /proc/self/fd/N and a link to it stand for /dev/stdout, which resolves the same way.
  TempDir dir;
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  const std::string fd_path = "/proc/self/fd/" + std::to_string(ends[1]);
  const std::string link = dir / "stdout";
  fs::create_symlink(fd_path, link);
  write_atomically(link, "through the link\n");
  ::close(ends[1]);
  CHECK(read_all(ends[0]) == "through the link\n");
  ::close(ends[0]);
  CHECK(fs::is_symlink(link));

  // Behind the descriptor, a regular file: still written where the descriptor points.
  const std::string file = dir / "held.txt";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  write_atomically("/proc/self/fd/" + std::to_string(fd), "held\n");
  struct stat by_fd {
  }, by_name{};
  REQUIRE(::fstat(fd, &by_fd) == 0);
  REQUIRE(::stat(file.c_str(), &by_name) == 0);
  CHECK(by_fd.st_ino == by_name.st_ino);  // the file was not replaced behind the descriptor
  ::close(fd);
  CHECK(slurp(file) == "held\n");
}

TEST_CASE("a replaced file keeps its mode") {
  TempDir dir;
  const std::string target = dir / "r.json";
  write_atomically(target, "old");
  REQUIRE(::chmod(target.c_str(), 0640) == 0);
  write_atomically(target, "new");
  CHECK(slurp(target) == "new");
  CHECK((mode_of(target) & 07777) == 0640);
}

TEST_CASE("a new file gets the mode the umask allows") {
  TempDir dir;
  const mode_t old_mask = ::umask(022);
  write_atomically(dir / "r.json", "x");
  ::umask(old_mask);
  CHECK((mode_of(dir / "r.json") & 07777) == 0644);
}

TEST_CASE("an empty output path is refused") {
  CHECK(error_message<OutputError>([] { check_writable(""); }).find("empty") != std::string::npos);
  CHECK(error_message<OutputError>([] { write_atomically("", "x"); }).find("empty") !=
        std::string::npos);
}

TEST_CASE("a socket is refused and stays") {
  TempDir dir;
  const std::string path = dir / "sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  CHECK(error_message<OutputError>([&] { check_writable(path); }).find("is a socket") !=
        std::string::npos);
  CHECK(error_message<OutputError>([&] { write_atomically(path, "x"); }).find("is a socket") !=
        std::string::npos);
  CHECK(S_ISSOCK(mode_of(path)));
  ::close(s);
}

TEST_CASE("a block device is refused and stays") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: mknod of a block device needs root");
    return;
  }
  TempDir dir;
  const std::string node = dir / "block";
  // Never opened: refused on its type alone. 7,0 is a loop device's numbers.
  REQUIRE(::mknod(node.c_str(), S_IFBLK | 0600, ::makedev(7, 0)) == 0);
  CHECK(error_message<OutputError>([&] {
          write_atomically(node, "x");
        }).find("is a block device") != std::string::npos);
  CHECK(S_ISBLK(mode_of(node)));
}

TEST_CASE("the same file is recognized through ./, a hard link and a missing path") {
  TempDir dir;
  const std::string r = dir / "r.json";
  write_atomically(r, "{}");
  CHECK(same_file(r, (dir.path / "." / "r.json").string()));
  REQUIRE(::link(r.c_str(), (dir / "hard.json").c_str()) == 0);
  CHECK(same_file(r, dir / "hard.json"));
  CHECK_FALSE(same_file(r, dir / "other.json"));
  CHECK(same_file(dir / "new.csv", (dir.path / "sub" / ".." / "new.csv").string()));
  CHECK_FALSE(same_file(dir / "new.csv", dir / "new.json"));

  const std::string cwd = fs::current_path().string();
  fs::current_path(dir.path);
  CHECK(same_file("r.json", "./r.json"));
  fs::current_path(cwd);
}

TEST_CASE("an output naming an input or another output is refused with both roles") {
  TempDir dir;
  const std::string r = dir / "r.json";
  write_atomically(r, "{}");
  const std::string msg = error_message([&] {
    check_distinct_files({{"the report", r}}, {{"-o", (dir.path / "." / "r.json").string()}});
  });
  CHECK(msg.find("-o '") == 0);
  CHECK(msg.find("the report '" + r + "'") != std::string::npos);
  CHECK(error_message([&] {
          check_distinct_files({}, {{"--json", dir / "x"}, {"--csv", dir / "x"}});
        }).find("--csv '") == 0);
  CHECK(error_message([&] {
          check_distinct_files({{"the input", "-"}}, {{"--json", "-"}, {"--csv", dir / "x"}});
        }).empty());
}

TEST_CASE("a dangling link is the same file as the file it would create") {
  TempDir dir;
  fs::create_symlink("nx.json", dir.path / "dang.csv");  // nx.json does not exist yet
  CHECK(same_file(dir / "nx.json", dir / "dang.csv"));
  CHECK(same_file(dir / "dang.csv", dir / "nx.json"));
  CHECK_FALSE(same_file(dir / "other.json", dir / "dang.csv"));
  CHECK(error_message([&] {
          check_distinct_files({}, {{"--json", dir / "nx.json"}, {"--csv", dir / "dang.csv"}});
        }).find("--csv '") == 0);
}

TEST_CASE("a chain of links, dangling or not, is the file it ends at") {
  TempDir dir;
  fs::create_directory(dir.path / "sub");
  fs::create_symlink("sub/second", dir.path / "first");  // first -> sub/second -> ../end.json
  fs::create_symlink("../end.json", dir.path / "sub" / "second");
  CHECK(same_file(dir / "first", dir / "end.json"));
  write_atomically(dir / "first", "{}");  // written through the chain: end.json now exists
  CHECK(slurp(dir / "end.json") == "{}");
  CHECK(fs::is_symlink(dir.path / "first"));
  CHECK(same_file(dir / "first", dir / "end.json"));
}
