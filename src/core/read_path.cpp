#include "core/read_path.hpp"

#include <string>

#include "core/errors.hpp"

namespace readbench {

Path parse_path(std::string_view s) {
  if (const auto p = find_named(kPathNames, s)) return *p;
  // The command line also takes "all", which it expands before asking here.
  throw InputError("unknown path '" + std::string(s) + "' (expected " +
                   names_of(kPathNames, "all") + ")");
}

CacheState parse_cache_state(std::string_view s) {
  if (const auto c = find_named(kCacheStateNames, s)) return *c;
  throw InputError("unknown cache state '" + std::string(s) + "' (expected " +
                   names_of(kCacheStateNames) + ")");
}

}  // namespace readbench
