// A view larger than its whole source (768 bytes of a 384-byte shared
// buffer) is reported at the view, and accesses through it go to a private
// buffer of the view's size: no corrupted heap. Clamping the shift to 0, as
// for a view that merely starts too late (cpu-view-out-of-bounds.mlir), still
// wrote past the buffer (found by scripts/fuzz.py --seed 3131: "malloc():
// unaligned tcache chunk detected").
// RUN: not tile-run %s --target=cpu --workers=1 2>&1 | FileCheck %s
// CHECK: 1 out-of-bounds, 0 deadlocks
// CHECK-NEXT: @large_view: out-of-bounds access at {{.*}}cpu-view-larger-than-source.mlir:[[@LINE+5]]:8: memref.view memref<96xf64, #gpu.address_space<workgroup>> of memref<384xi8, #gpu.address_space<workgroup>> (its bytes leave the source): index [0] by thread (0, 0, 0) of block (0, 0, 0)
tile.kernel @large_view(%X: memref<96xf64>) grid [1] threads [32] {
  %raw = tile.alloc_shared : memref<384xi8, #gpu.address_space<workgroup>>
  %tx = tile.thread_id x
  // 96 doubles (768 bytes) from byte %tx of a 384-byte buffer.
  %w = memref.view %raw[%tx][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<96xf64, #gpu.address_space<workgroup>>
  tile.copy %X to %w : memref<96xf64> to memref<96xf64, #gpu.address_space<workgroup>>
}
