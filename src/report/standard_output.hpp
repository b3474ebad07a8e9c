#pragma once
// Writes to stdout are checked like writes to a file: a closed stdout or a full device is an
// error (OutputError, exit 2), never an exit 0 that leaves an empty report behind.
#include <string_view>

namespace readbench {

// Writes `text` to std::cout and flushes it, or once plugins are loaded to the descriptor that
// holds stdout (plugins/stdout_diversion.hpp). Throws OutputError("cannot write to stdout: ...").
void write_stdout(std::string_view text);

// Writes "readbench: MESSAGE" and a newline to stderr, the message made printable
// (core/printable.hpp): one line, whatever a report or a file name held.
void write_error_line(std::string_view message);

// Called once, first thing in main: a standard descriptor (0, 1, 2) closed at start is
// replaced by the read end of an empty pipe, so no file opened later takes its number (a
// report's temporary file on fd 1 would receive the table) and writes to it fail with EBADF.
void hold_standard_descriptors();

// Called once, last thing in main: flushes stdout (std::cout and the C stream, which printf
// uses) and closes fd 1, where a deferred write error can still show (once plugins are loaded:
// closes the descriptor that holds stdout). Throws OutputError.
void close_stdout();

}  // namespace readbench
