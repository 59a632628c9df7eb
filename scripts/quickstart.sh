#!/usr/bin/env bash
# Quick start: installs whatever this machine lacks, then runs the main job: CloverLeaf 2D on its
# built-in default problem (960x960 clover_bm_short, test problem 2) with automatic checkpointing
# into ./checkpoints (thread-offloaded writes) and the checkpoint report.
#
# The checkpoint settings come from OPS_* variables, so flags given here win:
#   bash scripts/quickstart.sh --ops-restart            # continue from the newest checkpoint
#   bash scripts/quickstart.sh deck.in --ops-threads 2  # another deck, other runtime flags
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export OPS_CHECKPOINT_DIR="${OPS_CHECKPOINT_DIR:-checkpoints}"
export OPS_CHECKPOINT_MODE="${OPS_CHECKPOINT_MODE:-thread}"
export OPS_DIAGS="${OPS_DIAGS:-2}"
cargo run --release -p cloverleaf -- "$@"
