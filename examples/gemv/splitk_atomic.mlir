// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TileLang GEMV tutorial, step 2 ("More concurrency"): split K over the
// threads of the block, threads (tn: x = BLOCK_N = 4, tk: y = BLOCK_K = 64).
// Every thread accumulates one product per K tile; the partial sums meet in
// shared memory through atomic adds. Barrier insertion orders the zeroing,
// the atomics and the final read (the tutorial's code has no barrier and
// relies on luck).

// CHECK-LABEL: tile.kernel @gemv_splitk_atomic
tile.kernel @gemv_splitk_atomic(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                                %C: memref<1024xf16>)
    grid [256] threads [4, 64] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %bn = tile.block_id x
  %tn = tile.thread_id x
  %tk = tile.thread_id y
  %C_shared = tile.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
  %first = arith.cmpi eq, %tk, %c0 : index
  scf.if %first {
    memref.store %zero, %C_shared[%tn] : memref<4xf32, #gpu.address_space<workgroup>>
  }
  %init_sum = arith.constant 0.0 : f32
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %part = tile.serial %bk = %c0 to %c16 step %c1 iter_args(%acc = %init_sum) -> (f32) {
    %k = affine.apply affine_map<(bk, tk) -> (bk * 64 + tk)>(%bk, %tk)
    %a = memref.load %A[%k] : memref<1024xf16>
    %b = memref.load %B[%n, %k] : memref<1024x1024xf16>
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %prod = arith.mulf %af, %bf : f32
    %sum = arith.addf %acc, %prod : f32
    tile.yield %sum : f32
  }
  tile.atomic_add %C_shared[%tn], %part : memref<4xf32, #gpu.address_space<workgroup>>, f32
  %total = memref.load %C_shared[%tn] : memref<4xf32, #gpu.address_space<workgroup>>
  %res = arith.truncf %total : f32 to f16
  memref.store %res, %C[%n] : memref<1024xf16>
}

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
