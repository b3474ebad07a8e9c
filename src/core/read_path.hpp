#pragma once
// The two ways to read a sequence's history and the cache state of a sample.
#include <string_view>

#include "core/names.hpp"

namespace readbench {

enum class Path { gather, fused };
enum class CacheState { cold, hot };
inline constexpr Named<Path> kPathNames[] = {{Path::gather, "gather"}, {Path::fused, "fused"}};
inline constexpr Named<CacheState> kCacheStateNames[] = {{CacheState::cold, "cold"},
                                                         {CacheState::hot, "hot"}};

constexpr std::string_view to_string(Path p) { return name_in(kPathNames, p); }
constexpr std::string_view to_string(CacheState c) { return name_in(kCacheStateNames, c); }
Path parse_path(std::string_view s);               // throws InputError
CacheState parse_cache_state(std::string_view s);  // throws InputError

}  // namespace readbench
