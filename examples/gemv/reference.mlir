// RUN: tile-opt %s | tile-opt | FileCheck %s

// The references of the GEMV examples, written once: each example
// declares the one it checks against with `tile.defined_in = "reference.mlir"`
// and tile-run links it in from here (docs/tile-run.md).

// CHECK-LABEL: func.func @gemv_reference
func.func @gemv_reference(%A: memref<?xf16>, %B: memref<?x?xf16>,
                          %C: memref<?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n_rows = memref.dim %B, %c0 : memref<?x?xf16>
  %k_cols = memref.dim %B, %c1 : memref<?x?xf16>
  scf.for %n = %c0 to %n_rows step %c1 {
    %sum = scf.for %k = %c0 to %k_cols step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %A[%k] : memref<?xf16>
      %b = memref.load %B[%n, %k] : memref<?x?xf16>
      %af = arith.extf %a : f16 to f32
      %bf = arith.extf %b : f16 to f32
      %prod = arith.mulf %af, %bf : f32
      %next = arith.addf %acc, %prod : f32
      scf.yield %next : f32
    }
    %res = arith.truncf %sum : f32 to f16
    memref.store %res, %C[%n] : memref<?xf16>
  }
  return
}
