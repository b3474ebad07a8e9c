#!/usr/bin/env bash
# What the CI's extra steps need beyond the README's quick test command: clang with
# libclang-rt-14-dev (libFuzzer and the sanitizer runtimes, only recommended by clang's package,
# which install-deps.sh does not install), LLVM's OpenMP runtime (libomp-dev) for the clang
# build of the whole tree; the aarch64 cross compiler (its libgomp comes with it) and
# qemu-user, which runs the aarch64 tests; Slurm and munge, for the fleet's one-node cluster.
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" clang libclang-rt-14-dev libomp-dev \
  g++-aarch64-linux-gnu qemu-user slurmctld slurmd slurm-client munge
