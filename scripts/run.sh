#!/usr/bin/env bash
# The main job on a fresh Debian machine: install dependencies, build the readbench binary
# alone (not the tests), run the default sweep. Extra arguments go to `readbench run`
# (e.g. --json report.json). The binary stays at build/default/src/readbench;
# `cmake --install build/default --prefix DIR` copies it to DIR/bin.
# The CUDA backend is built where nvcc is found and a GPU is visible (nvidia-smi lists one):
# on a machine without one the sweep could only run on the CPU, and its first report need not
# wait for the kernels' nvcc build (scripts/test.sh builds them wherever nvcc is).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cuda=AUTO
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  cuda=OFF
  echo "run.sh: no GPU visible (nvidia-smi lists none): building the CPU backend only" >&2
fi
cmake --preset default -DREADBENCH_CUDA=$cuda >/dev/null
cmake --build --preset default --target readbench
exec build/default/src/readbench run "$@"
