// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}

// The TileLang GEMV tutorial's naive kernel: C[n] = sum_k A[k] * B[n, k] with
// f16 inputs and f32 accumulation, N = K = 1024, BLOCK_N = BLOCK_K = 128. One
// thread per output element; each K tile of A and B is staged in shared
// memory by every thread, then reduced from there. Barrier insertion makes
// the staging safe (the loops below have none on purpose). The running sum
// is carried by the loops (iter_args) where TileLang keeps a one-element
// register buffer.

// CHECK-LABEL: tile.kernel @gemv_naive
// CHECK-SAME: grid [8] threads [128]
// CHECK-SAME: attributes {reference = @gemv_reference}
tile.kernel @gemv_naive(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                        %C: memref<1024xf16>)
    grid [8] threads [128] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %bn = tile.block_id x
  %tn = tile.thread_id x
  %A_shared = tile.alloc_shared : memref<128xf16, #gpu.address_space<workgroup>>
  %B_shared = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %zero = arith.constant 0.0 : f32
  %n = affine.apply affine_map<(bn, tn) -> (bn * 128 + tn)>(%bn, %tn)
  // CHECK: tile.serial
  %C_reg = tile.serial %bk = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    // Stage the K tile: A_shared[tk] = A[k], B_shared[tn, tk] = B[n, k].
    tile.serial %tk = %c0 to %c128 step %c1 {
      %k = affine.apply affine_map<(bk, tk) -> (bk * 128 + tk)>(%bk, %tk)
      %a = memref.load %A[%k] : memref<1024xf16>
      memref.store %a, %A_shared[%tk] : memref<128xf16, #gpu.address_space<workgroup>>
      %b = memref.load %B[%n, %k] : memref<1024x1024xf16>
      memref.store %b, %B_shared[%tn, %tk] : memref<128x128xf16, #gpu.address_space<workgroup>>
    }
    // sum += f32(A_shared[tk]) * f32(B_shared[tn, tk]).
    %tile_sum = tile.serial %tk = %c0 to %c128 step %c1 iter_args(%partial = %acc) -> (f32) {
      %a = memref.load %A_shared[%tk] : memref<128xf16, #gpu.address_space<workgroup>>
      %b = memref.load %B_shared[%tn, %tk] : memref<128x128xf16, #gpu.address_space<workgroup>>
      %af = arith.extf %a : f16 to f32
      %bf = arith.extf %b : f16 to f32
      %prod = arith.mulf %af, %bf : f32
      %sum = arith.addf %partial, %prod : f32
      tile.yield %sum : f32
    }
    tile.yield %tile_sum : f32
  }
  %res = arith.truncf %C_reg : f32 to f16
  memref.store %res, %C[%n] : memref<1024xf16>
}

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
