// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel gemv_1024 --check --bench
// GPU-SUITE: --kernel gemv_16384 --check --bench
// GPU-SUITE: --kernel gemv_3000x5120 --check --bench

// Our GEMV, C[n] = sum_k A[k] * B[n, k] (f16 in, f32 sums, f16 out), for
// N = K = 1024, N = K = 16384 and N = 3000, K = 5120. It is bound by reading
// B once, so every choice serves the memory system:
// - the 32 lanes of a warp read consecutive 16-byte pieces of one row of B
//   (threads x = 32 along K, y = 4 rows per block), so each warp load is
//   512 contiguous bytes;
// - each thread issues UNROLL = 4 independent 128-bit loads of B (and of A,
//   which stays in L1/L2) before using them, to keep enough bytes in flight;
// - the row sum is a thread_allreduce across x: five warp shuffles, no
//   shared memory, no barrier.

// CHECK-LABEL: tile.kernel @gemv_1024
tile.kernel @gemv_1024(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                      %C: memref<1024xf16>)
    grid [256] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c_iters = arith.constant 1 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %a = tile.alloc_local : memref<32xf16>
  %b = tile.alloc_local : memref<32xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.serial %it = %c0 to %c_iters step %c1 iter_args(%running = %init_sum) -> (f32) {
    // Four 128-bit loads of B (and of A) in flight per thread.
    tile.unroll %u = %c0 to %c4 step %c1 {
      %k0 = affine.apply affine_map<(it, u, tk) -> (it * 1024 + u * 256 + tk * 8)>(%it, %u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %kk = arith.addi %k0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %A[%kk] : memref<1024xf16>
        memref.store %av, %a[%l] : memref<32xf16>
        %bv = memref.load %B[%n, %kk] : memref<1024x1024xf16>
        memref.store %bv, %b[%l] : memref<32xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c32 step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<32xf16>
      %bv = memref.load %b[%l] : memref<32xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<1024xf16>
  }
}

// CHECK-LABEL: tile.kernel @gemv_16384
tile.kernel @gemv_16384(%A: memref<16384xf16>, %B: memref<16384x16384xf16>,
                      %C: memref<16384xf16>)
    grid [4096] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c_iters = arith.constant 16 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %a = tile.alloc_local : memref<32xf16>
  %b = tile.alloc_local : memref<32xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.serial %it = %c0 to %c_iters step %c1 iter_args(%running = %init_sum) -> (f32) {
    // Four 128-bit loads of B (and of A) in flight per thread.
    tile.unroll %u = %c0 to %c4 step %c1 {
      %k0 = affine.apply affine_map<(it, u, tk) -> (it * 1024 + u * 256 + tk * 8)>(%it, %u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %kk = arith.addi %k0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %A[%kk] : memref<16384xf16>
        memref.store %av, %a[%l] : memref<32xf16>
        %bv = memref.load %B[%n, %kk] : memref<16384x16384xf16>
        memref.store %bv, %b[%l] : memref<32xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c32 step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<32xf16>
      %bv = memref.load %b[%l] : memref<32xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<16384xf16>
  }
}

// CHECK-LABEL: tile.kernel @gemv_3000x5120
tile.kernel @gemv_3000x5120(%A: memref<5120xf16>, %B: memref<3000x5120xf16>,
                      %C: memref<3000xf16>)
    grid [750] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c_iters = arith.constant 5 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n = affine.apply affine_map<(bn, tn) -> (bn * 4 + tn)>(%bn, %tn)
  %a = tile.alloc_local : memref<32xf16>
  %b = tile.alloc_local : memref<32xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.serial %it = %c0 to %c_iters step %c1 iter_args(%running = %init_sum) -> (f32) {
    // Four 128-bit loads of B (and of A) in flight per thread.
    tile.unroll %u = %c0 to %c4 step %c1 {
      %k0 = affine.apply affine_map<(it, u, tk) -> (it * 1024 + u * 256 + tk * 8)>(%it, %u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %kk = arith.addi %k0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %A[%kk] : memref<5120xf16>
        memref.store %av, %a[%l] : memref<32xf16>
        %bv = memref.load %B[%n, %kk] : memref<3000x5120xf16>
        memref.store %bv, %b[%l] : memref<32xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c32 step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<32xf16>
      %bv = memref.load %b[%l] : memref<32xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<3000xf16>
  }
}

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
