#!/usr/bin/env bash
# The main job on a fresh Debian machine: install dependencies, build the readbench binary
# alone (not the tests: a first report in about a minute), run the default sweep.
# Extra arguments go to `readbench run` (e.g. --json report.json). The binary stays at
# build/default/src/readbench; `cmake --install build/default --prefix DIR` copies it to DIR/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target readbench
exec build/default/src/readbench run "$@"
