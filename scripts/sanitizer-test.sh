#!/usr/bin/env bash
# Builds tile-mlir with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DTILE_SANITIZE=ON, our code only: LLVM and MLIR are the packaged
# libraries) into $BUILD_DIR (default: build-sanitize), then runs the lit
# and unit tests under them (scripts/test.sh). Any report fails the run:
# -fno-sanitize-recover=all turns UBSan findings into errors, and ASan
# stops at its first error. Leak checking is on.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build-sanitize}
cmake -G Ninja -S . -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release -DTILE_SANITIZE=ON \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
cmake --build "$build_dir"
# allow_user_poisoning=0: LLVM's inline allocator code, compiled into our
# instrumented objects, poisons memory that the uninstrumented packaged
# MLIR libraries then copy (false use-after-poison reports in
# mlir::Dialect::addType before any of our code runs).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
BUILD_DIR="$build_dir" bash scripts/test.sh
