// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench --flops 2147483648

// TVM GEMM tutorial, v2 (tiling, 2-D threads): 32 x 32 outputs per block,
// one per thread (x: row, y: column), accumulating in global memory.

// CHECK-LABEL: tile.kernel @gemm_threads_2d
tile.kernel @gemm_threads_2d(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
    %C: memref<1024x512xf32>)
    grid [32, 16] threads [32, 32] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %m = affine.apply affine_map<(b, t) -> (b * 32 + t)>(%bx, %tx)
  %n = affine.apply affine_map<(b, t) -> (b * 32 + t)>(%by, %ty)
  memref.store %zero, %C[%m, %n] : memref<1024x512xf32>
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
