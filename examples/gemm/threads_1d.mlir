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

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
