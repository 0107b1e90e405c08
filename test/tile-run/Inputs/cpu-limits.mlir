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
