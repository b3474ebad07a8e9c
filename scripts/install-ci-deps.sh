#!/usr/bin/env bash
# What the CI's extra steps need beyond the README's quick test command: clang, whose Debian
# package ships libFuzzer and the sanitizer runtimes, with LLVM's OpenMP runtime (libomp-dev)
# for the clang build of the whole tree; the aarch64 cross compiler (its libgomp comes with
# it) and qemu-user, which runs the aarch64 tests.
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" clang libomp-dev g++-aarch64-linux-gnu qemu-user
