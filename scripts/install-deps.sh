#!/usr/bin/env bash
# Installs the system packages the project needs, if missing (Debian; run as root or with sudo).
# The Rust toolchain itself is expected to be present (rustup).
set -euo pipefail
# HDF5 for checkpoint files (h5dump from hdf5-tools reads them); Mesa's Vulkan drivers (llvmpipe, a
# software Vulkan device offering f64) so the wgpu backend and its tests run without a GPU.
# OpenMPI (and libclang, which the mpi crate's bindgen needs) for the `mpi` feature's tests under
# mpirun.
pkgs=(libhdf5-dev hdf5-tools pkg-config mesa-vulkan-drivers libvulkan1
      libopenmpi-dev openmpi-bin libclang-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup first" >&2; exit 1; }
