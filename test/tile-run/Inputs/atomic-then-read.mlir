// Threads 0 and 1 add 1.0 atomically to s[0]; thread 1 then reads s[0].
// Without the barrier barrier insertion places, the read races with thread
// 0's atomic (test/tile-run/cpu-target.test removes it).
tile.kernel @atomic_read(%y: memref<2xf32>) grid [1] threads [2] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %s = tile.alloc_shared : memref<1xf32, #gpu.address_space<workgroup>>
  %tx = tile.thread_id x
  %old = memref.atomic_rmw addf %one, %s[%c0] : (f32, memref<1xf32, #gpu.address_space<workgroup>>) -> f32
  %is1 = arith.cmpi eq, %tx, %c1 : index
  scf.if %is1 {
    %v = memref.load %s[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    memref.store %v, %y[%c0] : memref<2xf32>
  }
}
