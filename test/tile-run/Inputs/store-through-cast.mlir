// Thread 0 writes s[0] through a generic-space cast; thread 1 reads s[0].
// Barrier insertion must see the cast (test/tile-run/cpu-target.test).
tile.kernel @castspace(%y: memref<2xf32>) grid [1] threads [2] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %s = tile.alloc_shared : memref<1xf32, #gpu.address_space<workgroup>>
  %g = memref.memory_space_cast %s : memref<1xf32, #gpu.address_space<workgroup>> to memref<1xf32>
  %tx = tile.thread_id x
  %is0 = arith.cmpi eq, %tx, %c0 : index
  scf.if %is0 {
    memref.store %one, %g[%c0] : memref<1xf32>
  }
  %is1 = arith.cmpi eq, %tx, %c1 : index
  scf.if %is1 {
    %v = memref.load %s[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    memref.store %v, %y[%c0] : memref<2xf32>
  }
}
