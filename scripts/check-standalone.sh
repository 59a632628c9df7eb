#!/usr/bin/env bash
# The repository must stand alone: a `git clone` and the README's two commands work on a machine
# with nothing beside the clone.
#
#   bash scripts/check-standalone.sh             fails if a tracked file names a directory
#                                                outside the repository (the workspace's shared
#                                                folder beside it, or this machine's paths)
#   bash scripts/check-standalone.sh --copy DIR  the same check, then copies the tracked files
#                                                (as they are in the working tree) to DIR, whose
#                                                parent must hold no `shared` folder
#
# .ci/run runs the tests in such a copy, built into a target directory of its own (a build
# shared with the checkout would reuse binaries that have the checkout's paths compiled in):
# whatever a test reads outside the tracked files (a deck beside the repository, an untracked
# file) is then missing and the test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# Written so that this file does not match itself.
outside='[.][.]/shared|shared/(reference|ARCHITECTURE)|/work/(shared|peers|main|wt)/'
if hits=$(git grep -nIE "$outside" -- . ':!scripts/check-standalone.sh'); then
  printf 'tracked files name directories outside the repository:\n%s\n' "$hits" >&2
  exit 1
fi
echo "check-standalone: no tracked file names a directory outside the repository" >&2

if [ "${1:-}" = "--copy" ]; then
  dir=${2:?usage: check-standalone.sh --copy DIR}
  rm -rf "$dir"
  mkdir -p "$dir"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$dir"
  if [ -e "$dir/../shared" ]; then
    echo "check-standalone: $dir/../shared exists; copy elsewhere" >&2
    exit 1
  fi
  echo "check-standalone: $(git ls-files | wc -l) tracked files copied to $dir" >&2
fi
