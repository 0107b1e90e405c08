// A kernel that forgets half of its output: tile-run must report the
// unwritten elements (outputs are poisoned before the launch).
// RUN: tile-opt %s --tile-to-ptx -o /dev/null
// RUN: %if cuda %{ not tile-run %s --check | FileCheck %s %}
// CHECK: FAIL (512 elements not written)
// EXPECT: elements not written
tile.kernel @half_written(%x: memref<1024xf32>, %y: memref<1024xf32>)
    grid [2] threads [256] attributes {reference = @full} {
  %c256 = arith.constant 256 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %base = arith.muli %bx, %c256 : index
  %i = arith.addi %base, %tx : index
  %v = memref.load %x[%i] : memref<1024xf32>
  memref.store %v, %y[%i] : memref<1024xf32>
}

func.func @full(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %x[%i] : memref<1024xf32>
    memref.store %v, %y[%i] : memref<1024xf32>
  }
  return
}
