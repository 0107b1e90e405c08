// Consecutive reductions that share one trip through shared memory (a
// sum and a maximum of each row, rows over 64 threads = two warps), and a
// reduction of a fragment every thread holds whole (the row sums, reduced
// again into their total: its copies are combined once, not once per
// thread). test/tile-run/reduce.test.
tile.kernel @pair(%X: memref<4x512xf32>, %S: memref<4xf32>, %M: memref<4xf32>, %T: memref<1xf32>) grid [1] threads [256] attributes {reference = @ref} {
  %c0 = arith.constant 0 : index
  %sum = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %max = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %total = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 256, registers = 8, map = (d0, d1) -> (d0 floordiv 64, (d0 mod 64) * 8 + d1)>} : memref<4x512xf32, #tile.fragment>
  tile.copy %X[%c0, %c0] to %x : memref<4x512xf32> to memref<4x512xf32, #tile.fragment>
  tile.reduce add %x into %sum dim 1 clear : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  tile.reduce max %x into %max dim 1 clear : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  tile.reduce add %sum into %total dim 0 clear : memref<4xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  tile.copy %sum to %S[%c0] : memref<4xf32, #tile.fragment> to memref<4xf32>
  tile.copy %max to %M[%c0] : memref<4xf32, #tile.fragment> to memref<4xf32>
  tile.copy %total to %T[%c0] : memref<1xf32, #tile.fragment> to memref<1xf32>
}
func.func @ref(%X: memref<4x512xf32>, %S: memref<4xf32>, %M: memref<4xf32>, %T: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %tot = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %z) -> f32 {
    %r:2 = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %z, %m = %ninf) -> (f32, f32) {
      %v = memref.load %X[%i, %j] : memref<4x512xf32>
      %n = arith.addf %a, %v : f32
      %mm = arith.maximumf %m, %v : f32
      scf.yield %n, %mm : f32, f32
    }
    memref.store %r#0, %S[%i] : memref<4xf32>
    memref.store %r#1, %M[%i] : memref<4xf32>
    %t2 = arith.addf %t, %r#0 : f32
    scf.yield %t2 : f32
  }
  memref.store %tot, %T[%c0] : memref<1xf32>
  return
}
