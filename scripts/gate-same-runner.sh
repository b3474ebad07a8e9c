#!/usr/bin/env bash
# Same-runner gate for pull requests: the base and the head timed on one machine, their sweeps
# interleaved, the head gated against the base on exponents and on marginal cost per token
# (costs compare on one machine, exponents anywhere).
#
# Usage: scripts/gate-same-runner.sh [options] BASE HEAD [-- RUN_ARGS...]
#   BASE, HEAD        a readbench binary, or a git revision of this repository to build (CPU
#                     backend only, in a temporary worktree)
#   --rounds N        interleaved rounds, ABBA order (default 2)
#   --tolerance T     allowed rise of an exponent (default 0.10)
#   --max-cost-ratio R  allowed head/base marginal cost per token (default 1.4)
#   --allow WORDS     passed to `readbench check --allow` (e.g. contended)
#   --out DIR         where the reports and verdicts go (default gate-out)
#   RUN_ARGS          passed to every `readbench run` (default: --backend cpu)
# A verdict needs at least two judged rounds (or every round of a shorter --rounds), and a
# regression must show in every judged round to fail the gate (exit 1): a single round's noise
# does not. A round whose check cannot judge (a contended or incomplete report: exit 4;
# nothing to compare, such as fits over lengths the two do not share) is left out. Exit 0:
# pass; 1: a regression in every judged round; 4: too few rounds could be judged (a busy
# machine: the reports say why); 2: bad options, a build or run that failed, or a check that
# failed otherwise (its own exit status where it crashed).
# The defaults and why: README, "Same-runner gate".
set -euo pipefail
shopt -s inherit_errexit  # a failed build inside $(...) stops the script
usage_error() { echo "gate-same-runner: $*" >&2; exit 2; }
rounds=2 tolerance=0.10 ratio=1.4 allow="" out=gate-out
while [ $# -gt 0 ]; do
  case $1 in
    --rounds|--tolerance|--max-cost-ratio|--allow|--out)
      [ $# -ge 2 ] || usage_error "$1 needs a value" ;;&
    --rounds) rounds=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --max-cost-ratio) ratio=$2; shift 2 ;;
    --allow) allow=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    --) break ;;
    -*) usage_error "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage_error "BASE and HEAD are required (see --help)"
base=$1 head=$2
shift 2
[ "${1:-}" = "--" ] && shift
run_args=("$@")
[ ${#run_args[@]} -gt 0 ] || run_args=(--backend cpu)
case $rounds in ''|*[!0-9]*) usage_error "--rounds must be a whole number > 0" ;; esac
((10#$rounds > 0)) || usage_error "--rounds must be a whole number > 0"
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/readbench-gate.XXXXXX")
cleanup() {  # never fails: the script's own status stands
  for wt in "$work"/src-*; do
    [ -d "$wt" ] && { git -C "$root" worktree remove --force "$wt" 2>/dev/null || true; }
  done
  rm -rf "$work"
  git -C "$root" worktree prune 2>/dev/null || true
}
trap cleanup EXIT

# A binary as given, or one built from a revision.
binary_of() {  # NAME SPEC
  local name=$1 spec=$2
  if [ -f "$spec" ] && [ -x "$spec" ]; then realpath "$spec"; return; fi
  local src=$work/src-$name
  git -C "$root" worktree add --detach -q "$src" "$spec" >&2 ||
    usage_error "$name '$spec' is neither an executable nor a revision of this repository"
  # A build that fails is no regression verdict: exit 2, as documented.
  cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREADBENCH_CUDA=OFF \
    -DBUILD_TESTING=OFF >/dev/null || { echo "gate-same-runner: configuring $name ($spec) failed" >&2; exit 2; }
  cmake --build "$src/build" --target readbench >&2 ||
    { echo "gate-same-runner: building $name ($spec) failed" >&2; exit 2; }
  echo "$src/build/src/readbench"
}
base_bin=$(binary_of base "$base")
head_bin=$(binary_of head "$head")
for bin in "$base_bin" "$head_bin"; do
  [ -x "$bin" ] || { echo "gate-same-runner: no readbench binary at $bin" >&2; exit 2; }
done

# ABBA: machine drift during the run falls on both sides alike.
failed=0 judged=0
for i in $(seq 1 "$rounds"); do
  order=(base head)
  [ $((i % 2)) -eq 0 ] && order=(head base)
  for side in "${order[@]}"; do
    bin=$base_bin
    [ "$side" = head ] && bin=$head_bin
    echo "== round $i: $side" >&2
    # A run that fails (a correctness check, bad options) is no regression verdict: exit 2.
    if ! "$bin" run "${run_args[@]}" --json "$out/$side-$i.json" >"$out/$side-$i.txt"; then
      echo "gate-same-runner: the $side run of round $i failed (see $out/$side-$i.txt)" >&2
      exit 2
    fi
  done
  set +e
  "$head_bin" check "$out/head-$i.json" --baseline "$out/base-$i.json" --tolerance "$tolerance" \
    --max-cost-ratio "$ratio" ${allow:+--allow "$allow"} --json "$out/verdict-$i.json" \
    >"$out/check-$i.md" 2>"$out/check-$i.err"
  rc=$?
  set -e
  cat "$out/check-$i.md"
  cat "$out/check-$i.err" >&2
  case $rc in
    0) judged=$((judged + 1)) ;;
    1) judged=$((judged + 1)); failed=$((failed + 1)) ;;
    4) echo "gate-same-runner: round $i could not be judged (check exit 4): left out" ;;
    2)
      if grep -q '^readbench: nothing to compare' "$out/check-$i.err"; then
        echo "gate-same-runner: round $i had nothing to compare (check exit 2): left out"
      else
        echo "gate-same-runner: the check of round $i failed (see $out/check-$i.err)" >&2
        exit 2
      fi ;;
    *)
      echo "gate-same-runner: the check of round $i ended with status $rc" >&2
      exit "$rc" ;;
  esac
done
# One judged round is one round's noise, whichever way it goes: a verdict needs two (or every
# round asked for, if fewer).
needed=$((10#$rounds < 2 ? 10#$rounds : 2))
if [ "$judged" -lt "$needed" ]; then
  echo "gate-same-runner: CANNOT JUDGE: only $judged of $rounds rounds could be judged ($failed flagged a regression); $needed are needed for a verdict (see the checks above)"
  exit 4
fi
if [ "$failed" -eq "$judged" ]; then
  echo "gate-same-runner: FAIL: a regression in all $judged rounds (tolerance $tolerance, cost ratio $ratio)"
  exit 1
fi
echo "gate-same-runner: PASS: $failed of $judged judged rounds flagged a regression, not all (tolerance $tolerance, cost ratio $ratio)"
