// A kernel that computes a wrong value (2x where the reference says 3x):
// tile-run must report the mismatch.
// RUN: tile-opt %s --tile-to-ptx -o /dev/null
// RUN: %if cuda %{ not tile-run %s --check | FileCheck %s %}
// CHECK: y {{.*}} FAIL
// EXPECT: FAIL
tile.kernel @twice(%x: memref<4096xf32>, %y: memref<4096xf32>)
    grid [16] threads [256] attributes {reference = @thrice} {
  tile.parallel (%i) in [256] {
    %c256 = arith.constant 256 : index
    %bx = tile.block_id x
    %base = arith.muli %bx, %c256 : index
    %j = arith.addi %base, %i : index
    %v = memref.load %x[%j] : memref<4096xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %y[%j] : memref<4096xf32>
  }
}

func.func @thrice(%x: memref<4096xf32>, %y: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %c4096 step %c1 {
    %v = memref.load %x[%i] : memref<4096xf32>
    %w = arith.mulf %v, %three : f32
    memref.store %w, %y[%i] : memref<4096xf32>
  }
  return
}
