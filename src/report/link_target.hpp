#pragma once
// Where a chain of symbolic links from a path ends: the file a write through the path creates
// or replaces, whether or not it exists yet. A shell's `>` writes through a link, and so do
// readbench's outputs; two outputs are one file when their chains end at one place.
#include <string>

namespace readbench {

// `path` itself when it is no link; else the chain followed one hop at a time (each relative
// target taken from the link's own directory) until a name that is no link, exists or not.
// Stops after 40 hops, the kernel's own limit, at the name reached.
std::string link_target(const std::string& path);

}  // namespace readbench
