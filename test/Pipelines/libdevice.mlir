// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// REQUIRES: ptxas

// Math functions come from libdevice, linked into the PTX (CUDA under
// /usr/local/cuda or $CUDA_HOME): no external function is left for ptxas.
// CHECK-NOT: .extern .func
// CHECK-LABEL: .entry softplus(
// CHECK: ex2.approx
tile.kernel @softplus(%x: memref<256xf32>) grid [1] threads [256] {
  %tx = tile.thread_id x
  %one = arith.constant 1.0 : f32
  %v = memref.load %x[%tx] : memref<256xf32>
  %e = math.exp %v : f32
  %s = arith.addf %e, %one : f32
  %l = math.log %s : f32
  memref.store %l, %x[%tx] : memref<256xf32>
}
