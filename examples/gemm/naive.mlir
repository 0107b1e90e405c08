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

// CHECK-LABEL: func.func @gemm_reference
func.func @gemm_reference(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                          %C: memref<1024x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c1024 step %c1 {
    scf.for %n = %c0 to %c512 step %c1 {
      %sum = scf.for %k = %c0 to %c2048 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<1024x2048xf32>
        %b = memref.load %B[%k, %n] : memref<2048x512xf32>
        %prod = arith.mulf %a, %b : f32
        %next = arith.addf %acc, %prod : f32
        scf.yield %next : f32
      }
      memref.store %sum, %C[%m, %n] : memref<1024x512xf32>
    }
  }
  return
}
