#!/usr/bin/env bash
# The project's test command (the README's second quick-start command).
# Release mode: the application test problems (CloverLeaf 960x960) need optimised code.
# The checkpoint-store tests drive the HDF5 library, which is not thread-safe in Debian's
# build; they run one at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release --exclude ops-resilience "$@"
cargo test --release -p ops-resilience "$@" -- --test-threads=1
