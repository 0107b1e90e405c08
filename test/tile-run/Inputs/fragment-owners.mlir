// tile.for_each_owned, the escape hatch of fragments: per-thread code over
// the elements a thread holds, with thread indices and a shuffle. Element
// (i, j) of this layout is register i of thread j; each thread writes who
// holds each of its elements (100 x thread + register) and the element the
// next lane holds in the same register (a gpu.shuffle).
tile.kernel @owners(%X: memref<4x32xf32>, %Owner: memref<4x32xi32>,
                    %Next: memref<4x32xf32>)
    grid [1] threads [32] attributes {reference = @owners_reference} {
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4, 32], threads = 32, registers = 4, map = (d0, d1) -> (d1, d0)>} : memref<4x32xf32, #tile.fragment>
  tile.copy %X to %f : memref<4x32xf32> to memref<4x32xf32, #tile.fragment>
  tile.for_each_owned %f (%r, %i, %j) : memref<4x32xf32, #tile.fragment> {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c100 = arith.constant 100 : index
    %t = tile.thread_id x
    %t100 = arith.muli %t, %c100 : index
    %owner = arith.addi %t100, %r : index
    %owner32 = arith.index_cast %owner : index to i32
    memref.store %owner32, %Owner[%i, %j] : memref<4x32xi32>
    %x = memref.load %f[%i, %j] : memref<4x32xf32, #tile.fragment>
    %t1 = arith.addi %t, %c1 : index
    %lane = arith.remui %t1, %c32 : index
    %lane32 = arith.index_cast %lane : index to i32
    %width = arith.constant 32 : i32
    %next, %valid = gpu.shuffle idx %x, %lane32, %width : f32
    memref.store %next, %Next[%i, %j] : memref<4x32xf32>
  }
}

func.func @owners_reference(%X: memref<4x32xf32>, %Owner: memref<4x32xi32>,
                            %Next: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      %j100 = arith.muli %j, %c100 : index
      %owner = arith.addi %j100, %i : index
      %owner32 = arith.index_cast %owner : index to i32
      memref.store %owner32, %Owner[%i, %j] : memref<4x32xi32>
      %j1 = arith.addi %j, %c1 : index
      %jn = arith.remui %j1, %c32 : index
      %x = memref.load %X[%i, %jn] : memref<4x32xf32>
      memref.store %x, %Next[%i, %j] : memref<4x32xf32>
    }
  }
  return
}
