#!/usr/bin/env bash
# How well `readbench ab` judges on this machine: trials of an A/A (one build in both arms, the
# default paths and grid) and of the regression fixtures (tests/plugins/regress_*: +5% and +10%
# marginal cost, the time growing as L^0.1 faster from READBENCH_REGRESS_FROM), the kinds
# interleaved trial by trial, each verdict and wall time recorded. Run it alone on the machine.
#
# usage: tools/ab_targets.sh BUILD_DIR OUT_DIR [TRIALS [BACKEND [KINDS...]]]
#   BUILD_DIR  a build tree with src/readbench and tests/plugins/libregress_*_{cpu,cuda}.so
#   KINDS      any of aa cost5 cost10 cost3 slope stored (default: aa cost10 cost5 slope);
#              stored: a default `run` checked against the first one and the committed baseline
# Extra `readbench ab` options come from AB_ARGS (e.g. AB_ARGS="-b 32 -L 1024:65536:x4").
# Writes OUT_DIR/KIND-N.json and .md, and OUT_DIR/summary.tsv (kind, trial, exit, wall s, verdict,
# delta p, cost ratio and their CIs per pairing); prints the tally per kind.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0"; exit 2; }
build=$1 out=$2 trials=${3:-20} backend=${4:-cpu}
shift $(($# < 4 ? $# : 4))
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(aa cost10 cost5 slope)
bin=$build/src/readbench
plugins=$build/tests/plugins
mkdir -p "$out"
read -r -a extra <<<"${AB_ARGS:-}"
printf 'kind\ttrial\texit\twall_s\tverdict\tpairings\n' >"$out/summary.tsv"
for trial in $(seq 1 "$trials"); do
  # A new order of the kinds every trial, so a drift of the machine falls on all of them.
  mapfile -t order < <(printf '%s\n' "${kinds[@]}" | shuf)
  for kind in "${order[@]}"; do
    if [ "$kind" = stored ]; then
      # The stored-baseline gate: a default run checked against the first such run and against
      # the committed baseline (the exit statuses in the verdict column).
      start=$EPOCHREALTIME
      rc=0
      "$bin" run --backend "$backend" "${extra[@]}" --json "$out/stored-$trial.json" \
        >"$out/stored-$trial.md" 2>"$out/stored-$trial.err" || rc=$?
      [ -f "$out/stored-first.json" ] || cp "$out/stored-$trial.json" "$out/stored-first.json"
      c1=0 c2=0
      "$bin" check "$out/stored-$trial.json" --baseline "$out/stored-first.json" \
        >"$out/stored-$trial.check1" 2>&1 || c1=$?
      "$bin" check "$out/stored-$trial.json" --baseline "${BASELINE:-baselines/cpu-default.json}" \
        >"$out/stored-$trial.check2" 2>&1 || c2=$?
      wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
      printf '%s\t%s\t%s\t%.1f\tvs first %s, vs baseline %s\n' "$kind" "$trial" "$rc" "$wall" "$c1" "$c2" |
        tee -a "$out/summary.tsv"
      continue
    fi
    case $kind in
      aa) args=() ;;
      aa2) args=(--separate-workers) ;;
      *) args=(--path plugin:regress --base-plugin "$plugins/libregress_same_$backend.so"
               --head-plugin "$plugins/libregress_${kind}_$backend.so") ;;
    esac
    start=$EPOCHREALTIME
    rc=0
    "$bin" ab --backend "$backend" "${args[@]}" "${extra[@]}" --json "$out/$kind-$trial.json" \
      >"$out/$kind-$trial.md" 2>"$out/$kind-$trial.err" || rc=$?
    wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
    summary=$(python3 - "$out/$kind-$trial.json" <<'PY' 2>/dev/null || echo "-	no report"
import json, sys
r = json.load(open(sys.argv[1]))["ab"]
parts = []
for p in r["pairings"]:
    f = lambda v: "-" if v is None else f"{v:.4f}"
    ci = lambda c: "-" if c is None else f"[{c[0]:.4f},{c[1]:.4f}]"
    parts.append(f'{p["base_path"]}: {p["verdict"]} dp {f(p.get("delta_p"))} {ci(p.get("delta_p_ci95"))} '
                 f'cost {f(p.get("cost_ratio"))} {ci(p.get("cost_ratio_ci95"))}')
print(r["verdict"] + "\t" + "; ".join(parts) + f'; rounds {r["rounds"]}')
PY
)
    printf '%s\t%s\t%s\t%.1f\t%s\n' "$kind" "$trial" "$rc" "$wall" "$summary" | tee -a "$out/summary.tsv"
  done
done
echo
echo "kind: regression / pass / inconclusive / other exit; wall s min-median-max"
for kind in "${kinds[@]}"; do
  # Plain awk (mawk has no asort): the walls sorted by sort, the median picked by awk.
  awk -F'\t' -v k="$kind" '$1 == k { print $3 "\t" $4 }' "$out/summary.tsv" | sort -t$'\t' -k2,2g |
    awk -F'\t' -v k="$kind" '{ n[$1]++; w[++c] = $2 } END {
      printf "%s: %d / %d / %d / %d; wall %.1f-%.1f-%.1f s\n", k, n[1], n[0], n[4],
        c - n[0] - n[1] - n[4], w[1], w[int((c + 1) / 2)], w[c] }'
done
