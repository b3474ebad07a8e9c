#!/usr/bin/env bash
# What the CI's extra steps need beyond the README's quick test command: clang, whose Debian
# package ships libFuzzer and the sanitizer runtimes, for the fuzz targets.
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" clang
