// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape x=1000003 --check

// The first kernel of the README: x *= alpha over a vector of any length.
// CHECK-LABEL: tile.kernel @scale
// CHECK-SAME: grid [?] threads [256]
// CHECK: } grid_size {

tile.kernel @scale(%x: memref<?xf32>, %alpha: f32) grid [?] threads [256]
    attributes {reference = @scale_reference} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %base = arith.muli %bx, %c256 : index
  %i = arith.addi %base, %tx : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %inside = arith.cmpi ult, %i, %n : index
  scf.if %inside {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
} grid_size {
^bb0(%x: memref<?xf32>, %alpha: f32):
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c256 : index
  tile.yield %blocks : index
}

// CHECK-LABEL: func.func @scale_reference
func.func @scale_reference(%x: memref<?xf32>, %alpha: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
  return
}
