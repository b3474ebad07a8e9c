#pragma once
// The reads a sweep times, and the cache state of a sample.
#include <compare>
#include <string>
#include <string_view>

#include "core/enum_names.hpp"

namespace readbench {

// One of the two built-in ways to read a sequence's history, or a plugin's read
// (plugins/plugin.hpp), named "plugin:NAME" in reports.
struct Path {
  enum class Kind : unsigned char { gather, fused, plugin };
  Kind kind = Kind::fused;
  std::string plugin;  // the plugin's name, for Kind::plugin

  static const Path gather, fused;
  static Path of_plugin(std::string_view name) { return {Kind::plugin, std::string(name)}; }
  bool is_plugin() const { return kind == Kind::plugin; }
  friend bool operator==(const Path&, const Path&) = default;
  friend std::strong_ordering operator<=>(const Path&, const Path&) = default;
};
inline const Path Path::gather{Path::Kind::gather, {}};
inline const Path Path::fused{Path::Kind::fused, {}};

enum class CacheState { cold, hot };
inline constexpr Named<Path::Kind> kPathNames[] = {{Path::Kind::gather, "gather"},
                                                   {Path::Kind::fused, "fused"}};
inline constexpr std::string_view kPluginPathPrefix = "plugin:";
inline constexpr Named<CacheState> kCacheStateNames[] = {{CacheState::cold, "cold"},
                                                         {CacheState::hot, "hot"}};

// A plugin's name: 1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-' (it goes into file names, CSV
// cells and dashboards' keys as it is).
bool valid_plugin_name(std::string_view name);
std::string to_string(const Path& p);  // "gather", "fused" or "plugin:NAME"
constexpr std::string_view to_string(CacheState c) {
  return name_in(kCacheStateNames, c);
}
// gather, fused or plugin:NAME of a valid name; throws InputError.
Path parse_path(std::string_view s);
CacheState parse_cache_state(std::string_view s);  // throws InputError

}  // namespace readbench
