#!/usr/bin/env bash
# The wait-policy comparison of ../WAIT_POLICY.md: the CPU reads at L = 16, 256, 4096 under
# each libgomp wait setting, interleaved (the order rotates every repeat), quiet and beside one
# core of busy loop, with the load average logged before each run.
# Usage: run.sh READBENCH OUT_DIR [REPEATS]
set -euo pipefail
bin=$1 out=$2 repeats=${3:-3}
mkdir -p "$out"
variants=(active passive spin10k spin100k default)
env_of() {
  case $1 in
    active) echo OMP_WAIT_POLICY=active ;;
    passive) echo OMP_WAIT_POLICY=passive ;;
    spin10k) echo GOMP_SPINCOUNT=10000 ;;
    spin100k) echo GOMP_SPINCOUNT=100000 ;;
    default) echo READBENCH_NOTHING=1 ;;  # libgomp's own default: neither variable set
  esac
}
log=$out/runs.tsv
[[ -f $log ]] || printf 'repeat\tload\tvariant\tloadavg_before\tseconds\n' >"$log"
for ((r = 1; r <= repeats; r++)); do
  for load in quiet busy; do
    hog=
    if [[ $load == busy ]]; then
      nice -n 0 sh -c 'while :; do :; done' &
      hog=$!
      sleep 1
    fi
    n=${#variants[@]}
    for ((i = 0; i < n; i++)); do
      v=${variants[$(((i + r) % n))]}
      before=$(cut -d' ' -f1-3 /proc/loadavg)
      t0=$(date +%s.%N)
      env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT $(env_of "$v") "$bin" run --backend cpu \
        -L 16,256,4096 --json "$out/$load-$v-$r.json" >"$out/$load-$v-$r.txt"
      t1=$(date +%s.%N)
      printf '%s\t%s\t%s\t%s\t%.1f\n' "$r" "$load" "$v" "$before" "$(echo "$t1 - $t0" | bc)" >>"$log"
    done
    if [[ -n $hog ]]; then kill "$hog"; wait "$hog" 2>/dev/null || true; fi
  done
done
