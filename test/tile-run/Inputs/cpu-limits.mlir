// What the CPU target refuses with a message instead of aborting or running
// for hours (test/tile-run/cpu-limits.test; both found by scripts/fuzz.py).

// A packed f16x2 atomic lowers to inline PTX, which the host cannot run.
tile.kernel @packed_atomic(%H: memref<64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %h2 = arith.constant dense<1.0> : vector<2xf16>
  %old = tile.atomic_add %H[%c0], %h2 : memref<64xf16>, vector<2xf16> -> vector<2xf16>
}

// 2^31 - 1 blocks of 128 threads: more than the CPU target runs at once.
tile.kernel @huge_grid() grid [2147483647] threads [128] {
}

// 2^32 iterations that each store out of bounds: the launch stops after
// 2^20 out-of-bounds accesses instead of running for hours.
tile.kernel @missing_loop(%X: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 4294967296 : index
  %tx = tile.thread_id x
  %acc = tile.alloc_local : memref<4xf32>
  %v = memref.load %X[%tx] : memref<64xf32>
  scf.for %i = %c0 to %big step %c1 {
    memref.store %v, %acc[%i] : memref<4xf32>
  }
  %r = memref.load %acc[%c0] : memref<4xf32>
  memref.store %r, %X[%tx] : memref<64xf32>
}
