// RUN: not tile-opt %s --tile-to-ptx='ptx-output=/dev/null' -o /dev/null 2>&1 | FileCheck %s

// A kernel's pipeline that LLVM cannot parse is an error on its module.
// CHECK: error: invalid LLVM pass pipeline 'no-such-pass': unknown pass name 'no-such-pass'
tile.kernel @bad(%y: memref<32xf32>) grid [1] threads [32]
    attributes {llvm_passes = "no-such-pass"} {
  %t = tile.thread_id x
  %c = arith.constant 1.0 : f32
  memref.store %c, %y[%t] : memref<32xf32>
}
