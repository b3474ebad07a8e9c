# Sourced by the *_device.sh scripts that time two readbench binaries against each other on the
# GPU machine: .scratch/abx/old.tar.xz and new.tar.xz (readbench alone each, unpacked into
# /tmp/ab-old and /tmp/ab-new; libgomp from .scratch/rbx). Expects `out` (the results folder);
# sets `bin` (old, new), `log` and the library path; defines:
#   step MESSAGE            a heading, on the terminal and in device.log
#   ab WHICH NAME OPTS...   `readbench run --backend cuda --path fused OPTS` of binary WHICH into
#                           ab-NAME-WHICH.json / .txt, one line into device.log
abx=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/abx" && pwd)
mkdir -p "$out"
declare -A bin
for b in old new; do
  mkdir -p "/tmp/ab-$b"
  tar -xJf "$abx/$b.tar.xz" -C "/tmp/ab-$b"
  bin[$b]=/tmp/ab-$b/readbench
done
export LD_LIBRARY_PATH=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/rbx" && pwd)
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
ab() {  # which, name, options...
  local which=$1 name=$2
  shift 2
  timeout 150 "${bin[$which]}" run --backend cuda --path fused "$@" \
    --json "$out/ab-$name-$which.json" > "$out/ab-$name-$which.txt" 2>&1
  echo "ab $name $which rc=$? ($*)" | tee -a "$log"
}
