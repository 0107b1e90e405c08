// A local buffer in the private address space.
tile.kernel @priv(%y: memref<32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %p = tile.alloc_local : memref<2xf32, #gpu.address_space<private>>
  %tx = tile.thread_id x
  memref.store %one, %p[%c0] : memref<2xf32, #gpu.address_space<private>>
  %v = memref.load %p[%c0] : memref<2xf32, #gpu.address_space<private>>
  memref.store %v, %y[%tx] : memref<32xf32>
}
