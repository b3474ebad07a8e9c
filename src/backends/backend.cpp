#include "backends/backend.hpp"

namespace readbench {

std::string_view to_string(Path p) { return p == Path::gather ? "gather" : "fused"; }
std::string_view to_string(CacheState c) { return c == CacheState::cold ? "cold" : "hot"; }

}  // namespace readbench
