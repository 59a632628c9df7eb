#!/usr/bin/env bash
# The GPU checks, on a machine with a GPU, from a bundle made by `scripts/gpu-bundle.sh`: every
# wgpu test with OPS_REQUIRE_ALL=1 (a missing adapter fails), the apps on wgpu against rayon
# (wall seconds, alternating), the tracker's cost on wgpu (CloverLeaf off vs tracked), automatic
# checkpointing on wgpu with a bitwise restart, and the stencil benchmark. Run from a copy of
# this repository (the tests read its decks and golden files). Needs the GPU's Vulkan driver
# and `libvulkan1` (the NVIDIA driver's Vulkan ICD also needs `libglvnd0`); on a machine without
# them and without network, `GPU_CHECK_DEBS=DIR` unpacks the .deb files in DIR (`apt-get
# download libvulkan1 libglvnd0` elsewhere) into / first (as root). Prints one line per test and
# run, and the figures.
#
#   bash scripts/gpu-check.sh target/gpu-bundle.tar.xz [OUT_DIR]   # logs: target/gpu-check
set -uo pipefail
if [ -n "${GPU_CHECK_DEBS:-}" ]; then
  for f in "$GPU_CHECK_DEBS"/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
bundle="$(realpath "$1")"
out="$(realpath -m "${2:-$(dirname "$0")/../target/gpu-check}")"
cd "$(dirname "$0")/.."
mkdir -p "$out"
t0=$(date +%s)
el() { echo "[+$(($(date +%s) - t0))s] $*"; }

b="$(mktemp -d)"
tar -xJf "$bundle" -C "$b"
export LD_LIBRARY_PATH="$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" NODEVICE_SELECT=1
# The tests name the apps and the repository by the absolute paths they were built with.
while read -r name path; do
  if [ "$name" = root ]; then
    [ -e "$path" ] || { mkdir -p "$(dirname "$path")" && ln -s "$PWD" "$path"; }
  else
    mkdir -p "$(dirname "$path")" && cp "$b/bin/$name" "$path"
  fi
done <"$b/paths"
command -v nvidia-smi >/dev/null && nvidia-smi -L
echo "cores: $(nproc)"
"$b/bin/cloverleaf" apps/cloverleaf/decks/clover_test1.in --ops-backend auto --no-progress 2>&1 |
  grep "^ops:"

el "device tests (OPS_REQUIRE_ALL=1)"
for t in "$b"/tests/*; do
  case "$t" in *.dir) continue ;; esac
  name="$(basename "$t")"
  (cd "$(cat "$t.dir")" && OPS_REQUIRE_ALL=1 timeout 300 "$t" --test-threads 4 >"$out/$name.log" 2>&1)
  echo "TEST $name rc=$? $(grep -E '^test result' "$out/$name.log")"
done

# Wall seconds of one run, and whether the app's own check passed.
run() {
  local label="$1" s rc
  shift
  s=$(date +%s.%N)
  timeout 600 "$@" >"$out/run.log" 2>&1
  rc=$?
  printf 'RUN %-40s rc=%d %8.3f s  %s\n' "$label" "$rc" \
    "$(awk "BEGIN {print $(date +%s.%N) - $s}")" \
    "$(grep -m1 -oE 'PASSED|FAILED' "$out/run.log")"
}
el "apps: wgpu against rayon (all cores), alternating"
c="$b/bin/cloverleaf --no-progress"
for _ in 1 2; do
  run "cloverleaf 960^2 rayon" $c --ops-backend rayon
  run "cloverleaf 960^2 wgpu" $c --ops-backend wgpu
  run "cloverleaf 3840^2 rayon" $c apps/cloverleaf/decks/clover_bm16_short.in --ops-backend rayon
  run "cloverleaf 3840^2 wgpu" $c apps/cloverleaf/decks/clover_bm16_short.in --ops-backend wgpu
  run "tealeaf tea_bm_4 rayon" "$b/bin/tealeaf" apps/tealeaf/decks/tea_bm_4.in --ops-backend rayon
  run "tealeaf tea_bm_4 wgpu" "$b/bin/tealeaf" apps/tealeaf/decks/tea_bm_4.in --ops-backend wgpu
  run "cloverleaf3d 96^3 rayon" "$b/bin/cloverleaf3d" --no-progress --ops-backend rayon \
    apps/cloverleaf3d/decks/clover_bm_short.in
  run "cloverleaf3d 96^3 wgpu" "$b/bin/cloverleaf3d" --no-progress --ops-backend wgpu \
    apps/cloverleaf3d/decks/clover_bm_short.in
done
$c --ops-backend wgpu --profile >"$out/cloverleaf-wgpu-profile.txt" 2>&1

# Item 5 on the device: the same run untracked and tracked (diagnostics only, no store),
# alternating, best of five each: whether the tracker's host time hides behind the device's work.
el "tracking on wgpu: CloverLeaf 960^2 off vs tracked, alternating, best of 5"
best_off=999 best_on=999
for _ in 1 2 3 4 5; do
  s=$(date +%s.%N)
  $c --ops-backend wgpu >/dev/null 2>&1
  best_off=$(awk "BEGIN {t = $(date +%s.%N) - $s; print (t < $best_off) ? t : $best_off}")
  s=$(date +%s.%N)
  $c --ops-backend wgpu --ops-diags-json "$out/tracked.json" >/dev/null 2>&1
  best_on=$(awk "BEGIN {t = $(date +%s.%N) - $s; print (t < $best_on) ? t : $best_on}")
done
awk "BEGIN {printf \"TRACKING off %.3f s, tracked %.3f s: %+.2f %%\n\", $best_off, $best_on, \
  100 * ($best_on / $best_off - 1)}"

el "automatic checkpointing on wgpu (960^2, thread mode) and a restart from the last"
ck="$(mktemp -d)"
for every in 1 10; do
  rm -rf "$ck"/*
  run "cloverleaf wgpu, a checkpoint every $every" $c --ops-backend wgpu \
    --ops-checkpoint-dir "$ck" --ops-checkpoint-mode thread --ops-checkpoint-every "$every" \
    --ops-diags-json "$out/checkpoint-every-$every.json" --summary-json "$out/full.json"
done
run "cloverleaf wgpu, restarted" $c --ops-backend wgpu --ops-checkpoint-dir "$ck" --ops-restart \
  --summary-json "$out/restarted.json"
grep -m1 "restored checkpoint" "$out/run.log"
cmp -s "$out/full.json" "$out/restarted.json" && echo "restart: summaries bitwise identical" ||
  echo "restart: summaries DIFFER"
rm -rf "$ck"

el "stencil benchmark"
"$b/bin/stencil" --bench --warm-up-time 1 --measurement-time 2 2>&1 |
  grep -E "GB/s|time:|^par_loop" | grep -v "^\s*thrpt"
rm -rf "$b"
el "done: logs in $out"
