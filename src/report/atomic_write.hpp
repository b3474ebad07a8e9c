#pragma once
// A report is written to a temporary file beside its target, then renamed over it,
// so a failed run never leaves half a report or clobbers the previous one. "-" is stdout.
// A target that is not a regular file is never renamed over: a FIFO, a character device or a
// descriptor path (/dev/stdout, /dev/fd/N) is written in place; anything else is refused.
#include <string>

namespace readbench {

// Throws OutputError naming the path and the reason.
void write_atomically(const std::string& path, const std::string& content);

// Whether write_atomically writes `path` where it is (a FIFO, a character device, a descriptor
// path) rather than through a temporary file. Throws OutputError as write_atomically would.
bool writes_in_place(const std::string& path);

// Fails early (OutputError) when `path` could not be written later: it is empty, its
// directory is missing or not writable, or it names a directory, a block device or a socket.
// "-" always passes. Opens nothing, so a FIFO without a reader does not block it.
void check_writable(const std::string& path);

}  // namespace readbench
