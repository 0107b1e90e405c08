// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// The full 1-D convolution at M = 2^24 without shared memory or a
// pipeline: each thread loads its inputs straight into registers. The
// step before conv1d/best.mlir's pipelined kernel (docs/benchmarks.md).

// CHECK-LABEL: tile.kernel @conv1d_16m_direct
// For 2^24 no shared memory: each thread loads its 8 + 32 inputs straight
// from global memory into registers (ten 128-bit loads, all in flight at
// once, no barrier; the halo is read again by the neighbours, from L1).
// On an H200 this took 53.1 us against 56.2 us for a shared-memory tile as
// in conv1d_16384 with 128 x 8 (256 x 8: 55.3, 128 x 16: 53.2, 64 x 16:
// 57.5).
tile.kernel @conv1d_16m_direct(%A: memref<16777216xf32>, %W: memref<32xf32>, %B: memref<16777247xf32>)
    grid [16385] threads [128] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %n = affine.apply affine_map<(b, t) -> (b * 1024 + t * 8)>(%bx, %tx)
  // The thread's inputs start 32 early (below zero for the first thread:
  // those read as zero).
  %start = affine.apply affine_map<(b, t) -> (b * 1024 + t * 8 - 32)>(%bx, %tx)
  %w = tile.alloc_local : memref<32xf32>
  tile.copy %W to %w : memref<32xf32> to memref<32xf32>
  %x = tile.alloc_local : memref<40xf32>
  tile.copy %A[%start] to %x : memref<16777216xf32> to memref<40xf32>
  %y = tile.alloc_local : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  tile.unroll %j = %c0 to %c8 step %c1 {
    %acc = tile.alloc_local : memref<1xf32>
    memref.store %zero, %acc[%c0] : memref<1xf32>
    // y[j] = sum_r x[j + 32 - r] * w[r]: input n - r sits at x[j + 32 - r].
    tile.unroll %r = %c0 to %c32 step %c1 {
      %i = affine.apply affine_map<(j, r) -> (j + 32 - r)>(%j, %r)
      %a = memref.load %x[%i] : memref<40xf32>
      %b = memref.load %w[%r] : memref<32xf32>
      %s = memref.load %acc[%c0] : memref<1xf32>
      %t = math.fma %a, %b, %s : f32
      memref.store %t, %acc[%c0] : memref<1xf32>
    }
    %v = memref.load %acc[%c0] : memref<1xf32>
    memref.store %v, %y[%j] : memref<8xf32>
  }
  tile.copy %y to %B[%n] : memref<8xf32> to memref<16777247xf32>
}

// The CPU reference, for any signal length: np.convolve(A, W), "full".
// CHECK-LABEL: func.func @conv1d_reference
func.func @conv1d_reference(%A: memref<?xf32>, %W: memref<32xf32>,
                            %B: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?xf32>
  %n_out = memref.dim %B, %c0 : memref<?xf32>
  scf.for %n = %c0 to %n_out step %c1 {
    %sum = scf.for %r = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %i = arith.subi %n, %r : index
      %inside = arith.cmpi ult, %i, %m : index
      %term = scf.if %inside -> (f32) {
        %a = memref.load %A[%i] : memref<?xf32>
        %w = memref.load %W[%r] : memref<32xf32>
        %p = arith.mulf %a, %w : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %next = arith.addf %acc, %term : f32
      scf.yield %next : f32
    }
    memref.store %sum, %B[%n] : memref<?xf32>
  }
  return
}
