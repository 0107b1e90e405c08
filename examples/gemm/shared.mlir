// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench --flops 2147483648

// TVM GEMM tutorial, v3 (shared-memory cache, cooperative loads): 16 x 16
// outputs per block; for each K tile of 8, the block copies a 16 x 8 tile of
// A and an 8 x 16 tile of B into shared memory together (tile.copy), then
// every thread reads its row and column from there. Barrier insertion puts
// exactly two barriers per K tile. The sum still lives in global memory.

// CHECK-LABEL: tile.kernel @gemm_shared
tile.kernel @gemm_shared(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
    %C: memref<1024x512xf32>)
    grid [64, 32] threads [16, 16] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %m0 = affine.apply affine_map<(b) -> (b * 16)>(%bx)
  %n0 = affine.apply affine_map<(b) -> (b * 16)>(%by)
  %m = arith.addi %m0, %tx : index
  %n = arith.addi %n0, %ty : index
  %A_shared = tile.alloc_shared : memref<16x8xf32, #gpu.address_space<workgroup>>
  %B_shared = tile.alloc_shared : memref<8x16xf32, #gpu.address_space<workgroup>>
  memref.store %zero, %C[%m, %n] : memref<1024x512xf32>
  tile.serial %ko = %c0 to %c256 step %c1 {
    %k0 = arith.muli %ko, %c8 : index
    tile.copy %A[%m0, %k0] to %A_shared : memref<1024x2048xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %B_shared : memref<2048x512xf32> to memref<8x16xf32, #gpu.address_space<workgroup>>
    tile.unroll %ki = %c0 to %c8 step %c1 {
      %a = memref.load %A_shared[%tx, %ki] : memref<16x8xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B_shared[%ki, %ty] : memref<8x16xf32, #gpu.address_space<workgroup>>
      %p = arith.mulf %a, %b : f32
      %c = memref.load %C[%m, %n] : memref<1024x512xf32>
      %s = arith.addf %c, %p : f32
      memref.store %s, %C[%m, %n] : memref<1024x512xf32>
    }
  }
}

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
