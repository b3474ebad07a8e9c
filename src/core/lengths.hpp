#pragma once
// History lengths from the command line: "16,64,256" or a geometric range "16:65536:x4".
#include <cstdint>
#include <string_view>
#include <vector>

namespace readbench {

// Throws InputError naming the problem: empty, non-numeric, <= 0, unsorted, duplicated,
// or a range whose factor is < 2 or whose end lies below its start.
std::vector<std::int64_t> parse_lengths(std::string_view text);

}  // namespace readbench
