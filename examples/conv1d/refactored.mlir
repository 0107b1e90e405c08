// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TVM conv1d tutorial, v1 (refactored reduction): B[n] = sum over the 32
// taps r of A[n - r] * W[r], zero where n - r leaves the signal; still one
// block of one thread per output, accumulating in global memory.

// CHECK-LABEL: tile.kernel @conv1d_refactored
tile.kernel @conv1d_refactored(%A: memref<16384xf32>, %W: memref<32xf32>, %B: memref<16415xf32>)
    grid [16415] threads [1] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16384 = arith.constant 16384 : index
  %c16415 = arith.constant 16415 : index
  %zero = arith.constant 0.0 : f32
  %n = tile.block_id x
  memref.store %zero, %B[%n] : memref<16415xf32>
  tile.serial %r = %c0 to %c32 step %c1 {
    %i = arith.subi %n, %r : index
    %w = memref.load %W[%r] : memref<32xf32>
    %inside = arith.cmpi ult, %i, %c16384 : index
    %term = scf.if %inside -> (f32) {
      %a = memref.load %A[%i] : memref<16384xf32>
      %p = arith.mulf %a, %w : f32
      scf.yield %p : f32
    } else {
      scf.yield %zero : f32
    }
    %acc = memref.load %B[%n] : memref<16415xf32>
    %s = arith.addf %acc, %term : f32
    memref.store %s, %B[%n] : memref<16415xf32>
  }
}

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
