#include "core/read_path.hpp"

#include <algorithm>
#include <string>

#include "core/errors.hpp"

namespace readbench {

bool valid_plugin_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

std::string to_string(const Path& p) {
  if (p.is_plugin()) return std::string(kPluginPathPrefix) + p.plugin;
  return std::string(name_in(kPathNames, p.kind));
}

Path parse_path(std::string_view s) {
  if (const auto k = find_named(kPathNames, s)) return Path{*k, {}};
  if (s.starts_with(kPluginPathPrefix) && valid_plugin_name(s.substr(kPluginPathPrefix.size())))
    return Path::of_plugin(s.substr(kPluginPathPrefix.size()));
  // The command line also takes "all", which it expands before asking here.
  throw InputError("unknown path '" + std::string(s) + "' (expected " +
                   names_of(kPathNames, "plugin:NAME or all") + ")");
}

CacheState parse_cache_state(std::string_view s) {
  if (const auto c = find_named(kCacheStateNames, s)) return *c;
  throw InputError("unknown cache state '" + std::string(s) + "' (expected " +
                   names_of(kCacheStateNames) + ")");
}

}  // namespace readbench
