// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel conv1d_16384 --check --bench
// GPU-SUITE: --kernel conv1d_16m --check --bench

// Our full 1-D convolution, B = np.convolve(A, W) with 32 taps, for
// M = 16384 and M = 2^24. It is meant to run at the speed of memory: every
// element of A and B crosses DRAM once.
// - A block loads the TILE inputs it needs, plus the 32 before them (the
//   halo), into shared memory with one cooperative copy of 16-byte chunks;
//   inputs outside the signal read as zero, so no tap needs a test.
// - Each thread keeps the 32 taps, its P + 32 inputs and its P outputs in
//   registers (per-thread copies, 128-bit accesses) and computes the
//   P x 32 products fully unrolled (16384: 128 threads, P = 4).
// - The outputs leave with per-thread 128-bit stores, cut at the end of B.

// CHECK-LABEL: tile.kernel @conv1d_16384
tile.kernel @conv1d_16384(%A: memref<16384xf32>, %W: memref<32xf32>, %B: memref<16415xf32>)
    grid [33] threads [128] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %n0 = affine.apply affine_map<(b) -> (b * 512)>(%bx)
  // The tile starts 32 inputs early (below zero for the first block).
  %start = arith.subi %n0, %c32 : index
  %inputs = tile.alloc_shared : memref<544xf32, #gpu.address_space<workgroup>>
  tile.copy %A[%start] to %inputs : memref<16384xf32> to memref<544xf32, #gpu.address_space<workgroup>>
  %w = tile.alloc_local : memref<32xf32>
  tile.copy %W to %w : memref<32xf32> to memref<32xf32>
  %first = arith.muli %tx, %c4 : index
  %x = tile.alloc_local : memref<36xf32>
  tile.copy %inputs[%first] to %x : memref<544xf32, #gpu.address_space<workgroup>> to memref<36xf32>
  %y = tile.alloc_local : memref<4xf32>
  %zero = arith.constant 0.0 : f32
  tile.unroll %j = %c0 to %c4 step %c1 {
    // y[j] = sum_r x[j + 32 - r] * w[r]: input n - r sits at x[j + 32 - r].
    %v = tile.unroll %r = %c0 to %c32 step %c1 iter_args(%s = %zero) -> (f32) {
      %i = affine.apply affine_map<(j, r) -> (j + 32 - r)>(%j, %r)
      %a = memref.load %x[%i] : memref<36xf32>
      %b = memref.load %w[%r] : memref<32xf32>
      %t = math.fma %a, %b, %s : f32
      tile.yield %t : f32
    }
    memref.store %v, %y[%j] : memref<4xf32>
  }
  %out = arith.addi %n0, %first : index
  tile.copy %y to %B[%out] : memref<4xf32> to memref<16415xf32>
}

// CHECK-LABEL: tile.kernel @conv1d_16m
// For 2^24 no shared memory: each thread loads its 8 + 32 inputs straight
// from global memory into registers (ten 128-bit loads, all in flight at
// once, no barrier; the halo is read again by the neighbours, from L1).
// Both per-thread copies may cross an end of the signal, so they test the
// whole tile once and copy without further tests when it is inside (all
// but two threads): no branch cuts the 256 FMAs apart.
// H100, 2026-11-23: 49.5 us, 90% of the copy bandwidth (before the
// whole-tile test, with a test per 16-byte chunk: 56.5 us). 16 outputs per
// thread: 58.8 us, 32: 90.4 (fewer threads, and ptxas interleaves their
// loads with the FMAs). The persistent cp.async pipeline of
// conv1d/pipelined.mlir: 53.8 us.
tile.kernel @conv1d_16m(%A: memref<16777216xf32>, %W: memref<32xf32>, %B: memref<16777247xf32>)
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
    // y[j] = sum_r x[j + 32 - r] * w[r]: input n - r sits at x[j + 32 - r].
    %v = tile.unroll %r = %c0 to %c32 step %c1 iter_args(%s = %zero) -> (f32) {
      %i = affine.apply affine_map<(j, r) -> (j + 32 - r)>(%j, %r)
      %a = memref.load %x[%i] : memref<40xf32>
      %b = memref.load %w[%r] : memref<32xf32>
      %t = math.fma %a, %b, %s : f32
      tile.yield %t : f32
    }
    memref.store %v, %y[%j] : memref<8xf32>
  }
  tile.copy %y to %B[%n] : memref<8xf32> to memref<16777247xf32>
}

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
