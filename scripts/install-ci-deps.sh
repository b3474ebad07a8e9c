#!/usr/bin/env bash
# What the CI's extra steps need beyond scripts/install-deps.sh: clang, whose Debian package
# ships libFuzzer and the sanitizer runtimes, for the fuzz targets. Not part of the README's
# quick test command. Runs as root (apt-get); does nothing when everything is already there.
set -euo pipefail
packages=(clang)
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
