#!/usr/bin/env bash
# Sets up a Debian 12 machine for tile-mlir and builds it: installs the
# LLVM/MLIR 22 packages, GoogleTest, CMake and Ninja when they are missing,
# then configures and builds into $BUILD_DIR (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ python3 llvm-22-dev llvm-22-tools
          libmlir-22-dev mlir-22-tools libgtest-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${BUILD_DIR:-build}
cmake -G Ninja -S . -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
cmake --build "$build_dir"
