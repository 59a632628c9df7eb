#!/usr/bin/env bash
# Packs the GPU checks for a machine that has a GPU but no Rust toolchain and no network (a lent
# GPU machine): the apps, the wgpu test binaries and the stencil benchmark, built here for
# x86-64-v3 (AVX2: any recent x86-64 server, unlike this machine's `target-cpu=native`), with
# the shared libraries they link that a bare system may lack (HDF5 and its dependencies; glibc
# stays the target's). `scripts/gpu-check.sh` runs them there, from a copy of this repository.
#
#   bash scripts/gpu-bundle.sh                # writes target/gpu-bundle.tar.xz (about 30 MB)
#   CARGO_TARGET_DIR=target/valgrind bash scripts/gpu-bundle.sh   # reuse that x86-64-v3 build
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/portable}"
export RUSTFLAGS="-C target-cpu=x86-64-v3"
out="$PWD/target/gpu-bundle.tar.xz"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/tests" "$stage/lib"

tests=(-p ops-backends --test wgpu_backend --test wgpu_bitwise --test wgpu_laplace
  --test wgpu_limits --test wgpu_errors --test wgpu_select --test wgpu_smoke
  -p cloverleaf --test wgsl_golden --test wgpu_restart
  -p tealeaf --test wgsl_agreement -p cloverleaf3d --test wgpu)
{
  cargo test --release --no-run --message-format=json-render-diagnostics "${tests[@]}"
  cargo bench --no-run --message-format=json-render-diagnostics -p ops-benches
  cargo build --release --message-format=json-render-diagnostics \
    -p cloverleaf -p tealeaf -p cloverleaf3d
} >"$stage/artifacts.json"

# Each executable into the bundle: apps and the benchmark under bin/, tests under tests/ with
# the package directory they run in (cargo runs a test in its package's directory) and the
# absolute paths the tests were built with (the apps they spawn, the repository's root).
python3 - "$stage" "$PWD" <<'PY'
import json, os, shutil, subprocess, sys
stage, root = sys.argv[1], sys.argv[2]
apps = {}
for line in open(os.path.join(stage, "artifacts.json")):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind, name, exe = m["target"]["kind"][0], m["target"]["name"], m["executable"]
    pkg = os.path.relpath(os.path.dirname(m["manifest_path"]), root)
    if kind in ("bin", "bench"):
        dest = os.path.join(stage, "bin", name)
        if kind == "bin":
            apps[name] = exe
    elif kind == "test":
        name = f"{pkg.split('/')[-1]}-{name}"
        dest = os.path.join(stage, "tests", name)
        open(dest + ".dir", "w").write(pkg)
    else:
        continue
    shutil.copy(exe, dest)
    subprocess.run(["strip", "--strip-debug", dest], check=True)
with open(os.path.join(stage, "paths"), "w") as f:
    f.write(f"root {root}\n")
    for name, exe in sorted(apps.items()):
        f.write(f"{name} {exe}\n")
PY
rm "$stage/artifacts.json"
ldd "$stage/bin/cloverleaf" | awk '/=> \// {print $3}' |
  grep -vE '/(libc|libm|libresolv|libpthread|libdl|librt|libgcc_s)\.so' |
  xargs -I{} cp -L {} "$stage/lib/"
tar -cJf "$out" -C "$stage" .
echo "gpu-bundle: $out ($(du -h "$out" | cut -f1)); on the GPU machine, from this repository's root:"
echo "  bash scripts/gpu-check.sh $out"
