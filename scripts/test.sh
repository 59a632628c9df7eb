#!/usr/bin/env bash
# The project's test command (the README's second quick-start command).
# Release mode: the application test problems (CloverLeaf 960x960) need optimised code.
# The checkpoint-store tests drive the HDF5 library, which is not thread-safe in Debian's
# build; they run one at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release --exclude ops-resilience "$@"
cargo test --release -p ops-resilience "$@" -- --test-threads=1
# Distributed runs (cargo feature `mpi`) under Open MPI's mpirun, one test at a time: each
# launches up to 4 processes on this machine's cores.
cargo test --release -p ops-backends -p cloverleaf -p tealeaf \
  --features ops-backends/mpi,cloverleaf/mpi,tealeaf/mpi --test mpi "$@" -- --test-threads=1
