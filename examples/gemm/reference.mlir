// RUN: tile-opt %s | tile-opt | FileCheck %s

// The references of the GEMM examples, written once: each example
// declares the one it checks against with `tile.defined_in = "reference.mlir"`
// and tile-run links it in from here (docs/tile-run.md).

// CHECK-LABEL: func.func @gemm_reference
func.func @gemm_reference(%A: memref<?x?xf32>, %B: memref<?x?xf32>,
                          %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  %n = memref.dim %B, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %sum = scf.for %kk = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%i, %kk] : memref<?x?xf32>
        %b = memref.load %B[%kk, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %next = arith.addf %acc, %p : f32
        scf.yield %next : f32
      }
      memref.store %sum, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @gemm_f16_reference
func.func @gemm_f16_reference(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xf16>
  %N = memref.dim %C, %c1 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  scf.for %m = %c0 to %M step %c1 {
    scf.for %n = %c0 to %N step %c1 {
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<?x?xf16>
        %b = memref.load %B[%k, %n] : memref<?x?xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      %r = arith.truncf %sum : f32 to f16
      memref.store %r, %C[%m, %n] : memref<?x?xf16>
    }
  }
  return
}

// CHECK-LABEL: func.func @gemm_bf16_reference
func.func @gemm_bf16_reference(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %M = memref.dim %C, %c0 : memref<?x?xbf16>
  %N = memref.dim %C, %c1 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  scf.for %m = %c0 to %M step %c1 {
    scf.for %n = %c0 to %N step %c1 {
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<?x?xbf16>
        %b = memref.load %B[%k, %n] : memref<?x?xbf16>
        %af = arith.extf %a : bf16 to f32
        %bf = arith.extf %b : bf16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      %r = arith.truncf %sum : f32 to bf16
      memref.store %r, %C[%m, %n] : memref<?x?xbf16>
    }
  }
  return
}
