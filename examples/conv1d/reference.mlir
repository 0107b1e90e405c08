// RUN: tile-opt %s | tile-opt | FileCheck %s

// The references of the conv1d examples, written once: each example
// declares the one it checks against with `tile.defined_in = "reference.mlir"`
// and tile-run links it in from here (docs/tile-run.md).

// CHECK-LABEL: func.func @conv1d_reference
func.func @conv1d_reference(%A: memref<?xf32>, %W: memref<32xf32>,
                            %B: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?xf32>
  %n_out = memref.dim %B, %c0 : memref<?xf32>
  scf.for %n = %c0 to %n_out step %c1 {
    %sum = scf.for %r = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %i = arith.subi %n, %r : index
      %inside = arith.cmpi ult, %i, %m : index
      %term = scf.if %inside -> (f32) {
        %a = memref.load %A[%i] : memref<?xf32>
        %w = memref.load %W[%r] : memref<32xf32>
        %p = arith.mulf %a, %w : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %next = arith.addf %acc, %term : f32
      scf.yield %next : f32
    }
    memref.store %sum, %B[%n] : memref<?xf32>
  }
  return
}
