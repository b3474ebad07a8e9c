# Cross build for 64-bit Arm Linux with Debian's cross compiler (g++-aarch64-linux-gnu), run
# under user-mode emulation (qemu-aarch64 from qemu-user): ctest starts every test binary and
# the CLI tests' readbench through the emulator.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(triple_root /usr/aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${triple_root})

# Debian's cross compiler is not a sysroot build: it finds the target's headers and libraries
# (glibc, libstdc++, libgomp) in /usr/aarch64-linux-gnu, and searches the host's /usr/include
# last, after them. So the header-only dependencies (CLI11, nlohmann_json, doctest, Boost.Math)
# come from the host's packages, and so do their CMake package files, which is why packages
# and includes also search the host's /usr; libraries are looked up in the target's root only,
# so nothing compiled for the host is linked.
set(CMAKE_FIND_ROOT_PATH ${triple_root} /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
