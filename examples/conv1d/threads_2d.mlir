// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TVM conv1d tutorial, v3 (2-D threads): 1026 blocks of 4 x 4 threads, one
// output per thread (n = 16 * block + 4 * ty + tx).

// CHECK-LABEL: tile.kernel @conv1d_threads_2d
tile.kernel @conv1d_threads_2d(%A: memref<16384xf32>, %W: memref<32xf32>, %B: memref<16415xf32>)
    grid [1026] threads [4, 4] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16384 = arith.constant 16384 : index
  %c16415 = arith.constant 16415 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %n = affine.apply affine_map<(b, y, x) -> (b * 16 + y * 4 + x)>(%bx, %ty, %tx)
  %valid = arith.cmpi ult, %n, %c16415 : index
  scf.if %valid {
    memref.store %zero, %B[%n] : memref<16415xf32>
    tile.serial %r = %c0 to %c32 step %c1 {
      %i = arith.subi %n, %r : index
      %w = memref.load %W[%r] : memref<32xf32>
      %inside = arith.cmpi ult, %i, %c16384 : index
      %term = scf.if %inside -> (f32) {
        %a = memref.load %A[%i] : memref<16384xf32>
        %p = arith.mulf %a, %w : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %acc = memref.load %B[%n] : memref<16415xf32>
      %s = arith.addf %acc, %term : f32
      memref.store %s, %B[%n] : memref<16415xf32>
    }
  }
}

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
