// RUN: tile-opt %s --tile-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s --check-prefix=PTX

// min_blocks_per_sm becomes nvvm.minctasm on the gpu.func and
// .minnctapersm in the PTX, next to .maxntid from the block shape.
// GPU: gpu.func @occupancy({{.*}}) kernel attributes {{{.*}}nvvm.minctasm = 8 : i32
// PTX: .entry occupancy
// PTX: .maxntid 128, 1, 1
// PTX-NEXT: .minnctapersm 8
tile.kernel @occupancy(%A: memref<128xf32>) grid [1] threads [128]
    attributes {min_blocks_per_sm = 8} {
  %tx = tile.thread_id x
  %v = memref.load %A[%tx] : memref<128xf32>
  memref.store %v, %A[%tx] : memref<128xf32>
}

// Without it, no occupancy request.
// PTX: .entry plain
// PTX: .maxntid 64, 1, 1
// PTX-NOT: .minnctapersm
tile.kernel @plain(%A: memref<64xf32>) grid [1] threads [64] {
  %tx = tile.thread_id x
  %v = memref.load %A[%tx] : memref<64xf32>
  memref.store %v, %A[%tx] : memref<64xf32>
}
