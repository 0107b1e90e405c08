// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TileLang GEMV tutorial, step 5 ("tvm_thread_allreduce instead of
// atomicAdd"): as step 4, with the partial sums combined by
// tile.thread_allreduce across y: warp shuffles over the lanes that hold
// the same row, one shared-memory exchange between the warps.

// CHECK-LABEL: tile.kernel @gemv_allreduce
// CHECK: tile.thread_allreduce add %{{.*}} across(y) : f32
tile.kernel @gemv_allreduce(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                            %C: memref<1024xf16>)
    grid [256] threads [4, 32] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %bn = tile.block_id x
  %tn = tile.thread_id x
  %tk = tile.thread_id y
  %A_local = tile.alloc_local : memref<8xf16>
  %B_local = tile.alloc_local : memref<8xf16>
  %init_sum = arith.constant 0.0 : f32
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %part = tile.serial %bk = %c0 to %c4 step %c1 iter_args(%running = %init_sum) -> (f32) {
    // One 128-bit load of A and one of B per thread and K tile.
    %k0 = affine.apply affine_map<(bk, tk) -> (bk * 256 + tk * 8)>(%bk, %tk)
    tile.vectorized %k = %c0 to %c8 step %c1 {
      %kk = arith.addi %k0, %k : index
      %a = memref.load %A[%kk] : memref<1024xf16>
      memref.store %a, %A_local[%k] : memref<8xf16>
      %b = memref.load %B[%n, %kk] : memref<1024x1024xf16>
      memref.store %b, %B_local[%k] : memref<8xf16>
    }
    %running_next = tile.unroll %k = %c0 to %c8 step %c1 iter_args(%acc = %running) -> (f32) {
      %a = memref.load %A_local[%k] : memref<8xf16>
      %b = memref.load %B_local[%k] : memref<8xf16>
      %af = arith.extf %a : f16 to f32
      %bf = arith.extf %b : f16 to f32
      %prod = arith.mulf %af, %bf : f32
      %sum = arith.addf %acc, %prod : f32
      tile.yield %sum : f32
    }
    tile.yield %running_next : f32
  }
  %total = tile.thread_allreduce add %part across(y) : f32
  %res = arith.truncf %total : f32 to f16
  memref.store %res, %C[%n] : memref<1024xf16>
}

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
