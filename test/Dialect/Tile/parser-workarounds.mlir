// Inputs that crash MLIR 22.1's parser are errors in our tools instead
// (lib/InitAll/ParserWorkarounds.cpp; found by scripts/fuzz.py).
// RUN: not tile-opt %s 2>&1 | FileCheck %s
// RUN: not tile-run %s 2>&1 | FileCheck %s
// CHECK: parser-workarounds.mlir:[[@LINE+1]]:28: error: a dense array of 'index' is not supported: write array<i64: ...>
module attributes {sizes = array<index: 4, 1>} {
}
