#pragma once
// The words of `--backend`: which backends `run` and `verify` open (backend_opening.hpp), and
// the report's config.backend.
#include <string_view>

namespace readbench {

enum class BackendChoice { cpu, cuda, all, auto_ };
BackendChoice parse_backend_choice(std::string_view s);  // throws InputError
std::string_view to_string(BackendChoice b);

}  // namespace readbench
