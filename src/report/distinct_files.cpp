#include "report/distinct_files.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "core/errors.hpp"
#include "report/link_target.hpp"

namespace readbench {

namespace {
namespace fs = std::filesystem;

bool skipped(const std::string& path) {
  return path.empty() || path == "-";
}

// Resolves the links in the part of the path that exists, so a new file reached through a
// linked directory matches the same file named directly.
fs::path normalized(const std::string& path) {
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : resolved.lexically_normal();
}

}  // namespace

bool same_file(const std::string& a_path, const std::string& b_path) {
  // Compared where their links lead: a dangling link names the file a write would create.
  const std::string a = link_target(a_path), b = link_target(b_path);
  struct stat sa {
  }, sb{};
  const bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;
  return normalized(a) == normalized(b);
}

void check_distinct_files(const std::vector<RolePath>& inputs,
                          const std::vector<RolePath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const RolePath& out = outputs[i];
    if (skipped(out.path)) continue;
    auto refuse = [&](const RolePath& other) {
      throw InputError(out.role + " '" + out.path + "' names the same file as " + other.role +
                       " '" + other.path + "'");
    };
    for (const RolePath& in : inputs)
      if (!skipped(in.path) && same_file(out.path, in.path)) refuse(in);
    for (std::size_t j = 0; j < i; ++j)
      if (!skipped(outputs[j].path) && same_file(out.path, outputs[j].path)) refuse(outputs[j]);
  }
}

}  // namespace readbench
