// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --check-repeat 20 --bench

// The full 1-D convolution at M = 2^24 (np.convolve with 32 taps, as
// conv1d/best.mlir) as a persistent software pipeline: the inputs reach
// shared memory through cp.async several tiles ahead, so the loads in
// flight occupy no registers.

// CHECK-LABEL: tile.kernel @conv1d_16m_pipelined
// For 2^24 the tiles of 1024 outputs stream through a persistent grid:
// 396 blocks (3 per SM of 132), block b takes tiles b, b + 396, ... The
// 1056 inputs of a tile (its 1024 and the 32 before them) go into shared
// memory with one cooperative copy, which the 6-stage pipeline turns into
// cp.async running 5 tiles ahead: up to 5 x 4 KB of loads in flight per
// block that occupy no registers. Each thread then takes its 8 + 32 inputs
// from shared memory and computes as in conv1d_16384. `rolled` keeps one
// copy of the body (stage = tile mod 6) instead of unrolling it 6 times:
// 256 unrolled FMAs, 6 times over, would take 240 ms to compile.
// The last round of tiles runs past the signal: those tiles read zeros
// and store nothing (tile.copy cuts at the ends of A and B).
// H100, 2026-11-23: 53.8 us (the same unrolled: 53.5 us; 396 blocks x 6
// stages, 528 x 3, 528 x 4, 792 x 3 within 1 us of each other), against
// 49.5 us for conv1d/best.mlir's conv1d_16m, which loads the inputs
// straight into registers; on an H200 the unrolled pipeline took 40.7 us
// where that kernel, before its whole-tile bounds test, took 53.1.
// PTX-LABEL: .entry conv1d_16m_pipelined(
// PTX-COUNT-3: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: bar.sync 0;
// PTX-NOT: bar.sync
// PTX: ld.shared.v4
// PTX: fma.rn.f32
// PTX: st.global.v4
tile.kernel @conv1d_16m_pipelined(%A: memref<16777216xf32>, %W: memref<32xf32>, %B: memref<16777247xf32>)
    grid [396] threads [128] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  // ceil(16385 tiles / 396 blocks) rounds.
  %rounds = arith.constant 42 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %w = tile.alloc_local : memref<32xf32>
  tile.copy %W to %w : memref<32xf32> to memref<32xf32>
  %inputs = tile.alloc_shared : memref<1056xf32, #gpu.address_space<workgroup>>
  %first = arith.muli %tx, %c8 : index
  %zero = arith.constant 0.0 : f32
  tile.pipelined %it = %c0 to %rounds step %c1 stages 6 rolled {
    // Tile it * 396 + bx; its inputs start 32 early (below zero for the
    // first tile: those read as zero).
    %start = affine.apply affine_map<(i, b) -> ((i * 396 + b) * 1024 - 32)>(%it, %bx)
    tile.copy %A[%start] to %inputs : memref<16777216xf32> to memref<1056xf32, #gpu.address_space<workgroup>>
    %x = tile.alloc_local : memref<40xf32>
    tile.copy %inputs[%first] to %x : memref<1056xf32, #gpu.address_space<workgroup>> to memref<40xf32>
    %y = tile.alloc_local : memref<8xf32>
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
    %n = affine.apply affine_map<(i, b, t) -> ((i * 396 + b) * 1024 + t * 8)>(%it, %bx, %tx)
    tile.copy %y to %B[%n] : memref<8xf32> to memref<16777247xf32>
  }
}

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
