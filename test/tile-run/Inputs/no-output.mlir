// A kernel that writes none of its arguments: --check has nothing to compare.
tile.kernel @reads_only(%x: memref<64xf32>) grid [1] threads [64]
    attributes {reference = @reads_only_ref} {
  %tx = tile.thread_id x
  %v = memref.load %x[%tx] : memref<64xf32>
}

func.func @reads_only_ref(%x: memref<64xf32>) {
  return
}
