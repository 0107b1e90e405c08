// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench --flops 2147483648

// TVM GEMM tutorial, v1 (tiling, 1-D threads): the rows split by 32 into
// blocks (x) and threads, the columns over blocks (y); one output per
// thread, accumulating in global memory as in the TVM IR.

// CHECK-LABEL: tile.kernel @gemm_threads_1d
tile.kernel @gemm_threads_1d(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
    %C: memref<1024x512xf32>)
    grid [32, 512] threads [32] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %m = affine.apply affine_map<(b, t) -> (b * 32 + t)>(%bx, %tx)
  memref.store %zero, %C[%m, %by] : memref<1024x512xf32>
  tile.serial %k = %c0 to %c2048 step %c1 {
    %acc = memref.load %C[%m, %by] : memref<1024x512xf32>
    %a = memref.load %A[%m, %k] : memref<1024x2048xf32>
    %b = memref.load %B[%k, %by] : memref<2048x512xf32>
    %prod = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %prod : f32
    memref.store %sum, %C[%m, %by] : memref<1024x512xf32>
  }
}

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
