// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TVM conv1d tutorial, v5 (unrolled, 2-D threads): 513 blocks of 4 x 8
// threads; eight taps per shared-memory stage, the tap loop unrolled.

// CHECK-LABEL: tile.kernel @conv1d_unrolled
tile.kernel @conv1d_unrolled(%A: memref<16384xf32>, %W: memref<32xf32>, %B: memref<16415xf32>)
    grid [513] threads [4, 8] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16384 = arith.constant 16384 : index
  %c16415 = arith.constant 16415 : index
  %zero = arith.constant 0.0 : f32
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %n = affine.apply affine_map<(b, y, x) -> (b * 32 + y * 4 + x)>(%bx, %ty, %tx)
  %W_shared = tile.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
  %init_sum = arith.constant 0.0 : f32
  %v = tile.serial %ro = %c0 to %c4 step %c1 iter_args(%running = %init_sum) -> (f32) {
    %r0 = arith.muli %ro, %c8 : index
    tile.copy %W[%r0] to %W_shared : memref<32xf32> to memref<8xf32, #gpu.address_space<workgroup>>
    %running_next = tile.unroll %ri = %c0 to %c8 step %c1 iter_args(%s = %running) -> (f32) {
      %r = arith.addi %r0, %ri : index
      %i = arith.subi %n, %r : index
      %w = memref.load %W_shared[%ri] : memref<8xf32, #gpu.address_space<workgroup>>
      %inside = arith.cmpi ult, %i, %c16384 : index
      %term = scf.if %inside -> (f32) {
        %a = memref.load %A[%i] : memref<16384xf32>
        %p = arith.mulf %a, %w : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %t = arith.addf %s, %term : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %valid = arith.cmpi ult, %n, %c16415 : index
  scf.if %valid {
    memref.store %v, %B[%n] : memref<16415xf32>
  }
}

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
