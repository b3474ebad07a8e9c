#!/usr/bin/env bash
# Installs what readbench builds and tests with, from Debian's packages, when missing.
# Runs as root (apt-get); does nothing when everything is already there.
set -euo pipefail
# Extra package names given as arguments are installed too (scripts/install-ci-deps.sh).
packages=(cmake ninja-build g++ git libcli11-dev nlohmann-json3-dev doctest-dev libboost-dev
          python3 python3-jsonschema python3-prometheus-client "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
