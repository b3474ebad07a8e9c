#pragma once
// An output that names one of the command's inputs, or another of its outputs, would replace
// what is being read or written: `plot r.json -o r.json` loses the report. Checked before any
// work, so nothing is measured or read first.
#include <string>
#include <vector>

namespace readbench {

// A path and the role the command gives it ("--json", "the report"), for the message:
// "-o 'r.json' names the same file as the report 'r.json'".
struct RolePath {
  std::string role;
  std::string path;
};

// Whether `a` and `b` name one file, each taken where its chain of links ends (link_target.hpp,
// so a dangling link matches the file it would create): the same device and inode where both
// exist (so "r.json", "./r.json" and a hard link match), the same normalized absolute path where
// neither does.
bool same_file(const std::string& a, const std::string& b);

// Throws InputError naming both roles when an output is the same file as an input or an
// earlier output. Empty paths (not given) and "-" (stdin, stdout) are skipped.
void check_distinct_files(const std::vector<RolePath>& inputs,
                          const std::vector<RolePath>& outputs);

}  // namespace readbench
