// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel copy --check


// A device-to-device copy of 1 GiB of f32: the bandwidth ceiling that
// BENCH.md measures with a PyTorch copy. Each block copies a tile of 8192
// elements with 128-bit accesses, proven in bounds (no tests).

// CHECK-LABEL: tile.kernel @copy
// PTX-LABEL: .entry copy(
// PTX-NOT: setp
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
tile.kernel @copy(%src: memref<268435456xf32>, %dst: memref<268435456xf32>)
    grid [32768] threads [256] attributes {reference = @copy_reference} {
  %c8192 = arith.constant 8192 : index
  %bx = tile.block_id x
  %start = arith.muli %bx, %c8192 : index
  tile.copy %src[%start] to %dst[%start] shape [8192]
      : memref<268435456xf32> to memref<268435456xf32>
}

// CHECK-LABEL: tile.kernel @copy_reference
tile.kernel @copy_reference(%src: memref<268435456xf32>, %dst: memref<268435456xf32>)
    grid [1048576] threads [256] {
  %c256 = arith.constant 256 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %base = arith.muli %bx, %c256 : index
  %i = arith.addi %base, %tx : index
  %v = memref.load %src[%i] : memref<268435456xf32>
  memref.store %v, %dst[%i] : memref<268435456xf32>
}
