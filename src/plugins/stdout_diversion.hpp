#pragma once
// Plugins print: a constructor's banner, a debug printf, a write(1, ...). On readbench's stdout
// that would corrupt `run --json -`. So before the first plugin is loaded, fd 1 is pointed at
// stderr for the rest of the process (plugin code, its threads and child processes all write
// there), and readbench's own stdout is kept on another descriptor that only
// report/standard_output.cpp writes to. Diverting for the whole process rather than around each
// call keeps the timed calls free of extra system calls and also catches a plugin's threads.
namespace readbench {

// Keeps stdout on a new close-on-exec descriptor and points fd 1 at stderr, flushing what was
// buffered for stdout first. Once per process; later calls do nothing. Throws BackendError when
// the descriptors cannot be duplicated.
void divert_stdout_to_stderr();

// The descriptor readbench's own output goes to: STDOUT_FILENO until divert_stdout_to_stderr.
int own_stdout_fd();

}  // namespace readbench
