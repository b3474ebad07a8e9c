#!/usr/bin/env bash
# The main job on a fresh Debian machine: install dependencies, build, run the default sweep.
# Extra arguments go to `readbench run` (e.g. --json report.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
exec build/default/src/readbench run "$@"
