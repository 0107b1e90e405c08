#!/usr/bin/env bash
# Builds tile-run linked against static LLVM/MLIR (the GPU machine has no
# LLVM), strips it and compresses it into dist/gpu/ with what the GPU suite
# needs. Send dist/ along (the device tool's `carry`) and run there:
#   bash scripts/gpu-suite.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-gpu}
cmake -G Ninja -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DTILE_STATIC_LLVM=ON -DTILE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" --target tile-run
mkdir -p dist/gpu
strip -o dist/gpu/tile-run "$build_dir/bin/tile-run"
rm -f dist/gpu/tile-run.xz
xz -T2 -6 dist/gpu/tile-run
ls -la dist/gpu
