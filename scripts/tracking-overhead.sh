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

# Best of ROUNDS alternating runs of the command (off) and of the command with diagnostics only
# (tracked), in seconds; one line per program.
measure() {
  local label="$1"
  shift
  python3 - "$label" "$ROUNDS" "$tmp/diags.json" "$@" <<'PY'
import subprocess, sys, time
label, rounds, diags, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def once(args):
    t = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
off, on = [], []
for _ in range(rounds):
    off.append(once(cmd))
    on.append(once(cmd + ["--ops-diags-json", diags]))
print(f"{label:<46} off {min(off):8.3f} s   tracked {min(on):8.3f} s   "
      f"overhead {100 * (min(on) / min(off) - 1):+6.2f} %")
PY
}

measure "CloverLeaf 960x960, 87 steps, 2 threads" \
  target/release/cloverleaf --no-progress --ops-threads 2
measure "TeaLeaf tea_bm_2 (250x250), 2 threads" \
  target/release/tealeaf apps/tealeaf/decks/tea_bm_2.in --ops-threads 2
measure "ops-heat 64x64, 20000 steps (180,000 loops)" \
  target/release/ops-heat --n 64 --steps 20000 --ops-backend seq
measure "ops-heat 64x64 --tol 0, 20000 steps (600,000 loops)" \
  target/release/ops-heat --n 64 --steps 20000 --tol 0 --ops-backend seq
