// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench --flops 2147483648

// The seed's register accumulation: v3 with each thread's sum in a register
// (tile.alloc_local) and one store of C at the end.

// CHECK-LABEL: tile.kernel @gemm_registers
tile.kernel @gemm_registers(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
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
  %init_sum = arith.constant 0.0 : f32
  %r = tile.serial %ko = %c0 to %c256 step %c1 iter_args(%running = %init_sum) -> (f32) {
    %k0 = arith.muli %ko, %c8 : index
    tile.copy %A[%m0, %k0] to %A_shared : memref<1024x2048xf32> to memref<16x8xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %B_shared : memref<2048x512xf32> to memref<8x16xf32, #gpu.address_space<workgroup>>
    %running_next = tile.unroll %ki = %c0 to %c8 step %c1 iter_args(%c = %running) -> (f32) {
      %a = memref.load %A_shared[%tx, %ki] : memref<16x8xf32, #gpu.address_space<workgroup>>
      %b = memref.load %B_shared[%ki, %ty] : memref<8x16xf32, #gpu.address_space<workgroup>>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      tile.yield %s : f32
    }
    tile.yield %running_next : f32
  }
  memref.store %r, %C[%m, %n] : memref<1024x512xf32>
}

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
