#pragma once
// The reading of an input file or stdin.
#include <cstddef>
#include <string>

namespace readbench::cli {

// The most read_input reads: far above any report or points file, and an endless input (a
// device, a FIFO whose writer never stops) ends in an error instead of all of memory.
inline constexpr std::size_t kMaxInputBytes = std::size_t(64) << 20;

// The whole of FILE, or of stdin for "-". Throws InputError naming the file and the reason,
// also when it holds more than limit bytes.
std::string read_input(const std::string& path, std::size_t limit = kMaxInputBytes);

}  // namespace readbench::cli
