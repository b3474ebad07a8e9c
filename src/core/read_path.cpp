#include "core/read_path.hpp"

#include <string>

#include "core/errors.hpp"

namespace readbench {

std::string_view to_string(Path p) {
  return p == Path::gather ? "gather" : "fused";
}
std::string_view to_string(CacheState c) {
  return c == CacheState::cold ? "cold" : "hot";
}

Path parse_path(std::string_view s) {
  if (s == "gather") return Path::gather;
  if (s == "fused") return Path::fused;
  throw InputError("unknown path '" + std::string(s) + "' (expected gather, fused or all)");
}

CacheState parse_cache_state(std::string_view s) {
  if (s == "cold") return CacheState::cold;
  if (s == "hot") return CacheState::hot;
  throw InputError("unknown cache state '" + std::string(s) + "' (expected cold or hot)");
}

}  // namespace readbench
