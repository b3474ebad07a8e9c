#pragma once
// The two ways to read a sequence's history and the cache state of a sample.
#include <string_view>

namespace readbench {

enum class Path { gather, fused };
enum class CacheState { cold, hot };

std::string_view to_string(Path p);
std::string_view to_string(CacheState c);
Path parse_path(std::string_view s);               // throws InputError
CacheState parse_cache_state(std::string_view s);  // throws InputError

}  // namespace readbench
