#pragma once
// SPEC §6: a report is written to a temporary file beside its target, then renamed over it,
// so a failed run never leaves half a report or clobbers the previous one. "-" is stdout.
#include <string>

namespace readbench {

// Throws InputError naming the path and the reason.
void write_atomically(const std::string& path, const std::string& content);

// Fails early (InputError) when `path` could not be written later: its directory is missing
// or not writable, or it names a directory. "-" always passes.
void check_writable(const std::string& path);

}  // namespace readbench
