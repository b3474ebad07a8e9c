#!/usr/bin/env bash
# Same-runner gate for pull requests: the base and the head timed interleaved in one sweep on
# this machine (`readbench ab`), the head compared with the base pair by pair.
#
# Usage: scripts/gate-same-runner.sh [options] BASE HEAD [-- AB_ARGS...]
#   BASE, HEAD          a readbench binary, or a git revision of this repository to build (CPU
#                       backend only, in a temporary worktree)
#   --out DIR           where the ab report (ab.json), its plot (ab.svg) and the summary go
#                       (default gate-out)
#   AB_ARGS             passed to `readbench ab` (default: --backend cpu --max-cost-ratio 1.15:
#                       two builds run in two worker processes, which on a small VM read several
#                       percent apart for a whole run, docs/gate.md); e.g. --tolerance,
#                       --max-cost-ratio, --sweep-budget, --path, a shape
# The head's binary drives the comparison; both binaries must have the ab worker (readbench ab
# came with it: a base older than that cannot take part, exit 2 says so).
# Exit: 0 pass; 1 a regression; 4 inconclusive (the CIs still straddle the bounds when the
# sweep budget is spent: a machine too noisy for the bounds); 2 bad options, a build that
# failed, an arm that cannot run.
set -euo pipefail
shopt -s inherit_errexit  # a failed build inside $(...) stops the script
usage_error() { echo "gate-same-runner: $*" >&2; exit 2; }
out=gate-out
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || usage_error "$1 needs a value"; out=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    --) break ;;
    -*) usage_error "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage_error "BASE and HEAD are required (see --help)"
base=$1 head=$2
shift 2
[ "${1:-}" = "--" ] && shift
ab_args=("$@")
[ ${#ab_args[@]} -gt 0 ] || ab_args=(--backend cpu --max-cost-ratio 1.15)
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

status=0
"$head_bin" ab --base "$base_bin" --head "$head_bin" "${ab_args[@]}" --json "$out/ab.json" \
  >"$out/ab.md" || status=$?
cat "$out/ab.md"
case $status in
  0 | 1 | 4) "$head_bin" plot "$out/ab.json" -o "$out/ab.svg" || true ;;
esac
case $status in
  0) echo "gate-same-runner: PASS" ;;
  1) echo "gate-same-runner: FAIL: a regression (see the table above and $out/ab.json)" ;;
  4) echo "gate-same-runner: CANNOT JUDGE: the CIs straddle the bounds after the sweep budget (a machine too noisy for them; see $out/ab.json)" ;;
  *) echo "gate-same-runner: the comparison did not run (readbench ab exit $status)" >&2 ;;
esac
exit "$status"
