#include "report/link_target.hpp"

#include <sys/stat.h>

#include <filesystem>

namespace readbench {

std::string link_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  std::error_code ec;
  for (int hop = 0; hop < 40; ++hop) {  // 40: the kernel's own limit on link hops
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

}  // namespace readbench
