// A view whose bytes leave its source (a stage view shifted past the end of
// the shared buffer) is reported at the view, and accesses through it stay
// inside the source: no corrupted heap (found by scripts/fuzz.py, where it
// crashed tile-run with "malloc(): unaligned tcache chunk detected").
// RUN: not tile-run %s --target=cpu 2>&1 | FileCheck %s
// CHECK: 1 out-of-bounds, 0 deadlocks
// CHECK-NEXT: @late_view: out-of-bounds access at {{.*}}cpu-view-out-of-bounds.mlir:[[@LINE+7]]:8: memref.view memref<96xf32, #gpu.address_space<workgroup>> of memref<384xi8, #gpu.address_space<workgroup>> (its bytes leave the source): index [256] by thread (0, 0, 0) of block (0, 0, 0)
tile.kernel @late_view(%X: memref<96xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %raw = tile.alloc_shared : memref<384xi8, #gpu.address_space<workgroup>>
  %tx = tile.thread_id x
  %shift = arith.constant 256 : index
  // 96 floats (384 bytes) from byte 256 of a 384-byte buffer.
  %w = memref.view %raw[%shift][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<96xf32, #gpu.address_space<workgroup>>
  tile.copy %X to %w : memref<96xf32> to memref<96xf32, #gpu.address_space<workgroup>>
}
