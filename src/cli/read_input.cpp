#include "cli/read_input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/errors.hpp"

namespace readbench::cli {

namespace {

// Up to limit bytes of in; one byte more is an error, so an endless input stops there.
std::string read_bounded(std::istream& in, const std::string& name, std::size_t limit) {
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > limit - text.size())
      throw InputError("cannot read " + name + ": it holds more than " + std::to_string(limit) +
                       " bytes, far more than a report or a points file");
    text.append(chunk, got);
  }
  if (in.bad()) throw InputError("cannot read " + name + ": read error");
  return text;
}

}  // namespace

std::string read_input(const std::string& path, std::size_t limit) {
  if (path == "-") {
    // `readbench fit < dir`: reading a directory fails (EISDIR) as the end of an empty input
    // would, so it is named before.
    struct stat st {};
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISDIR(st.st_mode))
      throw InputError("cannot read stdin: it is a directory");
    return read_bounded(std::cin, "stdin", limit);
  }
  // Opening a directory succeeds; reading it throws a library error that names no file.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("cannot read '" + path + "': it is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  return read_bounded(f, "'" + path + "'", limit);
}

}  // namespace readbench::cli
