// The buffer form of tile.thread_allreduce: every thread's register tile
// combined across a thread dimension, and the result checked in every
// member of each group.
// @across_z: gemm/best's shape (four quarters of 64 threads along z), an
// 8 x 8 f32 tile: 64 KiB of partials, two chunks through shared memory.
tile.kernel @across_z(%In: memref<256x64xf32>, %Out: memref<4x64x64xf32>)
    grid [1] threads [8, 8, 4] attributes {reference = @across_z_reference} {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %k64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %tz = tile.thread_id z
  %t = affine.apply affine_map<(x, y) -> (y * 8 + x)>(%tx, %ty)
  %row = affine.apply affine_map<(t, z) -> (z * 64 + t)>(%t, %tz)
  %acc = tile.alloc_local : memref<8x8xf32>
  tile.unroll %e = %k0 to %k64 step %k1 {
    %v = memref.load %In[%row, %e] : memref<256x64xf32>
    %i = arith.divui %e, %c8 : index
    %j = arith.remui %e, %c8 : index
    memref.store %v, %acc[%i, %j] : memref<8x8xf32>
  }
  tile.thread_allreduce add %acc across(z) : memref<8x8xf32>
  tile.unroll %e = %k0 to %k64 step %k1 {
    %i = arith.divui %e, %c8 : index
    %j = arith.remui %e, %c8 : index
    %v = memref.load %acc[%i, %j] : memref<8x8xf32>
    memref.store %v, %Out[%tz, %t, %e] : memref<4x64x64xf32>
  }
}

func.func @across_z_reference(%In: memref<256x64xf32>, %Out: memref<4x64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %t = %c0 to %c64 step %c1 {
    scf.for %e = %c0 to %c64 step %c1 {
      %sum = scf.for %z = %c0 to %c4 step %c1 iter_args(%s = %zero) -> (f32) {
        %zt = arith.muli %z, %c64 : index
        %r = arith.addi %zt, %t : index
        %v = memref.load %In[%r, %e] : memref<256x64xf32>
        %n = arith.addf %s, %v : f32
        scf.yield %n : f32
      }
      scf.for %q = %c0 to %c4 step %c1 {
        memref.store %sum, %Out[%q, %t, %e] : memref<4x64x64xf32>
      }
    }
  }
  return
}

// @tree: a [5, 3] block (not a power of two), i32 max across y: every
// thread of a group is a member.
tile.kernel @tree(%In: memref<15x3xi32>, %Out: memref<15x3xi32>)
    grid [1] threads [5, 3] attributes {reference = @tree_reference} {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k3 = arith.constant 3 : index
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %l = affine.apply affine_map<(x, y) -> (y * 5 + x)>(%tx, %ty)
  %acc = tile.alloc_local : memref<3xi32>
  tile.unroll %e = %k0 to %k3 step %k1 {
    %v = memref.load %In[%l, %e] : memref<15x3xi32>
    memref.store %v, %acc[%e] : memref<3xi32>
  }
  tile.thread_allreduce max %acc across(y) : memref<3xi32>
  tile.unroll %e = %k0 to %k3 step %k1 {
    %v = memref.load %acc[%e] : memref<3xi32>
    memref.store %v, %Out[%l, %e] : memref<15x3xi32>
  }
}

func.func @tree_reference(%In: memref<15x3xi32>, %Out: memref<15x3xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c15 = arith.constant 15 : index
  scf.for %l = %c0 to %c15 step %c1 {
    %x = arith.remui %l, %c5 : index
    scf.for %e = %c0 to %c3 step %c1 {
      %first = memref.load %In[%x, %e] : memref<15x3xi32>
      %m = scf.for %y = %c1 to %c3 step %c1 iter_args(%acc = %first) -> (i32) {
        %y5 = arith.muli %y, %c5 : index
        %r = arith.addi %y5, %x : index
        %v = memref.load %In[%r, %e] : memref<15x3xi32>
        %n = arith.maxsi %acc, %v : i32
        scf.yield %n : i32
      }
      memref.store %m, %Out[%l, %e] : memref<15x3xi32>
    }
  }
  return
}

// @lanes: across x of [32, 2]: shuffles only, each element its own
// butterfly.
tile.kernel @lanes(%In: memref<64x4xf32>, %Out: memref<64x4xf32>)
    grid [1] threads [32, 2] attributes {reference = @lanes_reference} {
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  %k4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %l = affine.apply affine_map<(x, y) -> (y * 32 + x)>(%tx, %ty)
  %acc = tile.alloc_local : memref<4xf32>
  tile.unroll %e = %k0 to %k4 step %k1 {
    %v = memref.load %In[%l, %e] : memref<64x4xf32>
    memref.store %v, %acc[%e] : memref<4xf32>
  }
  tile.thread_allreduce add %acc across(x) : memref<4xf32>
  tile.unroll %e = %k0 to %k4 step %k1 {
    %v = memref.load %acc[%e] : memref<4xf32>
    memref.store %v, %Out[%l, %e] : memref<64x4xf32>
  }
}

func.func @lanes_reference(%In: memref<64x4xf32>, %Out: memref<64x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %l = %c0 to %c64 step %c1 {
    %y = arith.divui %l, %c32 : index
    %base = arith.muli %y, %c32 : index
    scf.for %e = %c0 to %c4 step %c1 {
      %sum = scf.for %x = %c0 to %c32 step %c1 iter_args(%s = %zero) -> (f32) {
        %r = arith.addi %base, %x : index
        %v = memref.load %In[%r, %e] : memref<64x4xf32>
        %n = arith.addf %s, %v : f32
        scf.yield %n : f32
      }
      memref.store %sum, %Out[%l, %e] : memref<64x4xf32>
    }
  }
  return
}
