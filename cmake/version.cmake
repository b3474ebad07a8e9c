# Writes version.hpp with the version and `git describe --always --dirty` of the source tree.
# Run at every build (src/CMakeLists.txt), so a report names the commit it was built from;
# configure_file leaves the file untouched when nothing changed, so nothing rebuilds needlessly.
execute_process(COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE READBENCH_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT READBENCH_GIT_COMMIT)
  set(READBENCH_GIT_COMMIT "unknown")
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
