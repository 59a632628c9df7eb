#!/usr/bin/env bash
# The project's test command (the README's second quick-start command).
# Release mode: the application test problems (CloverLeaf 960x960) need optimised code.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release "$@"
