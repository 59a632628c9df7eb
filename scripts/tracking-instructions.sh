#!/usr/bin/env bash
# What the resilience tracker costs in instructions and level-1 data cache misses when no
# checkpoint is due, counted by valgrind's cachegrind (a simulated cache: the same counts on every
# run): each program once with checkpointing off and once tracked (diagnostics only, no store),
# on one thread (the seq backend), libc's memset apart (see `count`). Unlike
# `scripts/tracking-overhead.sh`, whose times move by several per cent with the machine's
# load, these tell a change of a few per cent apart; on
# loops whose data does not fit the level-1 cache the misses (each a few nanoseconds) cost more
# than the instructions. Prints per program: the instructions off and tracked, the difference per
# loop and as a share of the run, and the tracked run's extra D1 misses per loop.
#
#   bash scripts/tracking-instructions.sh            # all four programs (CloverLeaf takes minutes)
#   bash scripts/tracking-instructions.sh heat tea   # a selection: clover, tea, heat, heat30
#
# heat: ops-heat 64x64 as it converges (9 loops per step, 3 reduction results, one call with a
# constant); heat30: the same with every inner solve sweeping 4 times (`--tol 0`: 30 loops
# per step, 6 reduction results, 4 calls with a constant).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || {
  echo "tracking-instructions: needs valgrind (apt-get install valgrind)" >&2
  exit 1
}
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(heat heat30 tea clover)
# Valgrind does not decode AVX-512: this build targets x86-64-v3, in its own directory.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/valgrind}"
RUSTFLAGS="-C target-cpu=x86-64-v3" cargo build --release -q -p cloverleaf -p tealeaf -p ops
bin="$CARGO_TARGET_DIR/release"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# "instructions D1-misses memset-instructions" of one run of the command. libc's memset is
# counted apart: how many instructions it takes depends on where its buffers fall (the
# runtime zeroes one per loop), which moves by up to 7 per loop between two runs of the same
# loops; the run checkpointing off is given padding in its environment as long as the tracked
# run's extra arguments, so that both start from the same stack.
count() {
  local out="$tmp/cg.out"
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$out" "$@" >/dev/null 2>&1
  python3 - "$out" <<'PY'
import sys
events, fn, totals, memset = None, "", None, 0
for line in open(sys.argv[1]):
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("fn="):
        fn = line[3:]
    elif line.startswith("summary:"):
        totals = dict(zip(events, map(int, line.split()[1:])))
    elif line[:1].isdigit() and "memset" in fn:
        memset += int(line.split()[1])
print(totals["Ir"], totals["D1mr"] + totals["D1mw"], memset)
PY
}

measure() {
  local label="$1"
  shift
  local off on
  local extra=("--ops-diags-json" "$tmp/diags.json")
  off="$(
    export PAD_A="$(printf '%*s' $((${#extra[0]} - 6)) '')"
    export PAD_B="$(printf '%*s' $((${#extra[1]} - 6)) '')"
    count "$@"
  )"
  on="$(count "$@" "${extra[@]}")"
  python3 - "$label" "$off" "$on" "$tmp/diags.json" <<'PY'
import json, sys
label, diags = sys.argv[1], sys.argv[4]
(off, off_miss, off_set), (on, on_miss, on_set) = (map(int, a.split()) for a in sys.argv[2:4])
loops = json.load(open(diags))["loops"]
# Outside memset (see `count`); memset's own difference is shown apart.
off, on = off - off_set, on - on_set
print(f"{label:<30} instructions off {off:>15,}  tracked {on:>15,}  "
      f"{(on - off) / loops:6.0f} per loop ({loops:,} loops)  {100 * (on / off - 1):+6.2f} %  "
      f"(memset {(on_set - off_set) / loops:+4.0f})  "
      f"D1 misses {(on_miss - off_miss) / loops:+6.1f} per loop")
PY
}

for w in "${which[@]}"; do
  case "$w" in
    heat) measure "ops-heat 64x64, 20000 steps" \
      "$bin/ops-heat" --n 64 --steps 20000 --ops-backend seq ;;
    heat30) measure "ops-heat 64x64 --tol 0, 20000 steps" \
      "$bin/ops-heat" --n 64 --steps 20000 --tol 0 --ops-backend seq ;;
    tea) measure "TeaLeaf tea_bm_2 (250x250)" \
      "$bin/tealeaf" apps/tealeaf/decks/tea_bm_2.in --ops-backend seq ;;
    clover) measure "CloverLeaf 960x960, 87 steps" \
      "$bin/cloverleaf" --no-progress --ops-backend seq ;;
    *) echo "tracking-instructions: unknown program '$w' (clover, tea, heat, heat30)" >&2; exit 2 ;;
  esac
done
