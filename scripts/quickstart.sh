#!/usr/bin/env bash
# Quick start: installs whatever this machine lacks, then runs the main job, CloverLeaf 2D on its
# built-in default problem (960x960 clover_bm_short, test problem 2) with the rayon backend.
# Extra arguments go to the cloverleaf binary (e.g. a deck path, --ops-threads 2, --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo run --release -p cloverleaf -- "$@"
