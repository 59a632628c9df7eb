#!/usr/bin/env bash
# What one checkpoint costs as a run grows longer: `ops-heat` (8x8 cells, so that the
# checkpoints' fixed costs and the logs, not the data, dominate) checkpointing every 100 steps,
# against the same run without checkpoints, alternating, best of ROUNDS each, for runs of
# several lengths. A checkpoint carries the run's history (the value and call logs): what it
# costs must not grow with the run's length. Prints one line per length: both times and the cost
# per checkpoint.
#
#   bash scripts/checkpoint-cost.sh                  # memory mode, ROUNDS=3
#   MODE=blocking ROUNDS=5 bash scripts/checkpoint-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
MODE="${MODE:-memory}"
cargo build --release -q -p ops
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$ROUNDS" "$MODE" "$tmp" <<'PY'
import shutil, subprocess, sys, time
rounds, mode, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def once(steps, checkpoint):
    shutil.rmtree(f"{tmp}/ck", ignore_errors=True)
    cmd = ["target/release/ops-heat", "--n", "8", "--steps", str(steps), "--ops-backend", "seq"]
    if checkpoint:
        cmd += ["--ops-checkpoint-dir", f"{tmp}/ck", "--ops-checkpoint-every", "100",
                "--ops-checkpoint-mode", mode]
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
for steps in (10_000, 40_000, 80_000):
    offs, ons = [], []
    for _ in range(rounds):
        offs.append(once(steps, False))
        ons.append(once(steps, True))
    off, on = min(offs), min(ons)
    n = steps // 100
    print(f"{mode} mode, {steps:>6} steps, {n:>4} checkpoints: off {off:.3f} s  "
          f"checkpointing {on:.3f} s  {1e3 * (on - off) / n:.2f} ms per checkpoint")
PY
