// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}

// The TVM GEMM tutorial's naive schedule: C = A * B in f32 with M = 1024,
// N = 512, K = 2048. One block of one thread per output element
// (blockIdx.y: row, blockIdx.x: column), accumulating in global memory like
// the lowered TVM IR.

// CHECK-LABEL: tile.kernel @gemm_naive
// CHECK-SAME: grid [512, 1024] threads [1]
tile.kernel @gemm_naive(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                        %C: memref<1024x512xf32>)
    grid [512, 1024] threads [1] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.block_id y
  %n = tile.block_id x
  memref.store %zero, %C[%m, %n] : memref<1024x512xf32>
  // CHECK: tile.serial
  tile.serial %k = %c0 to %c2048 step %c1 {
    %acc = memref.load %C[%m, %n] : memref<1024x512xf32>
    %a = memref.load %A[%m, %k] : memref<1024x2048xf32>
    %b = memref.load %B[%k, %n] : memref<2048x512xf32>
    %prod = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %prod : f32
    memref.store %sum, %C[%m, %n] : memref<1024x512xf32>
  }
}

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
