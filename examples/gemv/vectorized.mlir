// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TileLang GEMV tutorial, step 4 ("Vectorized reads"): as step 3, with the
// 8 f16 of A and of B that a thread needs per K tile read by one 128-bit
// load each (tile.vectorized; the vectorizer proves the offsets multiples
// of 8 elements). Partial sums still meet through shared-memory atomics.

// CHECK-LABEL: tile.kernel @gemv_vectorized
tile.kernel @gemv_vectorized(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
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
  %zero = arith.constant 0.0 : f32
  %C_shared = tile.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
  %first = arith.cmpi eq, %tk, %c0 : index
  scf.if %first {
    memref.store %zero, %C_shared[%tn] : memref<4xf32, #gpu.address_space<workgroup>>
  }
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
  tile.atomic_add %C_shared[%tn], %part : memref<4xf32, #gpu.address_space<workgroup>>, f32
  %total = memref.load %C_shared[%tn] : memref<4xf32, #gpu.address_space<workgroup>>
  %res = arith.truncf %total : f32 to f16
  memref.store %res, %C[%n] : memref<1024xf16>
}

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
