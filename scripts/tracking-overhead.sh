#!/usr/bin/env bash
# What the resilience tracker costs when no checkpoint is due: each program run side by side
# with checkpointing off and with the tracker on (diagnostics only, no store: every loop is
# tracked, the learner runs, no checkpoint is written), alternating, best of ROUNDS each, on
# the same binary. Prints one line per program: the two best times and the overhead.
#
#   bash scripts/tracking-overhead.sh            # ROUNDS=3
#   ROUNDS=5 bash scripts/tracking-overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
cargo build --release -q -p cloverleaf -p tealeaf -p ops
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Seconds of one run of the command line given.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

measure() {
  local label="$1"
  shift
  local best_off=1e9 best_on=1e9 t
  for _ in $(seq "$ROUNDS"); do
    t=$(seconds "$@")
    best_off=$(echo "if ($t < $best_off) $t else $best_off" | bc -l)
    t=$(seconds "$@" --ops-diags-json "$tmp/diags.json")
    best_on=$(echo "if ($t < $best_on) $t else $best_on" | bc -l)
  done
  printf '%-44s off %8.3f s   tracked %8.3f s   overhead %+6.2f %%\n' "$label" \
    "$best_off" "$best_on" "$(echo "100 * ($best_on / $best_off - 1)" | bc -l)"
}

measure "CloverLeaf 960x960, 87 steps, 2 threads" \
  target/release/cloverleaf --no-progress --ops-threads 2
measure "TeaLeaf tea_bm_2 (250x250), 2 threads" \
  target/release/tealeaf apps/tealeaf/decks/tea_bm_2.in --ops-threads 2
measure "ops-heat 64x64, 20000 steps (~20 loops/step)" \
  target/release/ops-heat --n 64 --steps 20000 --ops-backend seq
