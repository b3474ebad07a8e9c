#pragma once
// dlopen maps a library's segments as its headers describe them and trusts that the file holds
// them: a truncated library (a copy cut short) maps pages past the end of the file, and the first
// touch of one kills the process with SIGBUS before dlopen can say anything. So a plugin's file
// is read as an ELF shared object of this build's architecture before it is loaded.
#include <string>

namespace readbench {

// Throws InputError("cannot load plugin FILE: WHAT") unless `file` is a 64-bit ELF shared
// object (ET_DYN) of this build's byte order and machine, whose header, program and section
// header tables, segments and sections all lie inside the file.
void require_elf_library(const std::string& file);

}  // namespace readbench
