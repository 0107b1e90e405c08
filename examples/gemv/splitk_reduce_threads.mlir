// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TileLang GEMV tutorial, step 3 ("Customizing parallelism in K"): each of
// the reduce_threads = 32 threads along y handles TILE_K = 8 consecutive K
// elements per K tile of 256, accumulated serially; partial sums meet in
// shared memory through atomic adds. Threads (tn: x = 4, tk: y = 32).

// CHECK-LABEL: tile.kernel @gemv_splitk_reduce_threads
tile.kernel @gemv_splitk_reduce_threads(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                                        %C: memref<1024xf16>)
    grid [256] threads [4, 32] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %bn = tile.block_id x
  %tn = tile.thread_id x
  %tk = tile.thread_id y
  %A_local = tile.alloc_local : memref<8xf16>
  %B_local = tile.alloc_local : memref<8xf16>
  %C_shared = tile.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
  %first = arith.cmpi eq, %tk, %c0 : index
  scf.if %first {
    memref.store %zero, %C_shared[%tn] : memref<4xf32, #gpu.address_space<workgroup>>
  }
  %init_sum = arith.constant 0.0 : f32
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %part = tile.serial %bk = %c0 to %c4 step %c1 iter_args(%running = %init_sum) -> (f32) {
    tile.serial %k = %c0 to %c8 step %c1 {
      %kk = affine.apply affine_map<(bk, tk, k) -> (bk * 256 + tk * 8 + k)>(%bk, %tk, %k)
      %a = memref.load %A[%kk] : memref<1024xf16>
      memref.store %a, %A_local[%k] : memref<8xf16>
      %b = memref.load %B[%n, %kk] : memref<1024x1024xf16>
      memref.store %b, %B_local[%k] : memref<8xf16>
    }
    %running_next = tile.serial %k = %c0 to %c8 step %c1 iter_args(%acc = %running) -> (f32) {
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
