// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-insert-barriers))' | FileCheck %s --check-prefix=BARRIERS

// B = transpose(A) through a shared-memory tile, for a shape that is not a
// multiple of the tile: the cooperative copy handles the edges (elements
// outside A read as zero), the parallel loop guards its stores. The tile row
// is padded to 33 floats so that the transposed reads hit 32 different banks.

// CHECK-LABEL: tile.kernel @transpose
// BARRIERS-LABEL: tile.kernel @transpose
// BARRIERS: tile.copy
// BARRIERS-NEXT: tile.barrier
// BARRIERS-NEXT: tile.parallel
tile.kernel @transpose(%A: memref<1000x700xf32>, %B: memref<700x1000xf32>)
    grid [22, 32] threads [32, 8] attributes {reference = @transpose_reference} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c700 = arith.constant 700 : index
  %c1000 = arith.constant 1000 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c32 : index
  %n0 = arith.muli %bx, %c32 : index
  %tile = tile.alloc_shared : memref<32x33xf32, #gpu.address_space<workgroup>>
  tile.copy %A[%m0, %n0] to %tile[%c0, %c0] shape [32, 32]
      : memref<1000x700xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  tile.parallel (%i, %j) in [32, 32] {
    %row = arith.addi %n0, %i : index
    %col = arith.addi %m0, %j : index
    %row_ok = arith.cmpi ult, %row, %c700 : index
    %col_ok = arith.cmpi ult, %col, %c1000 : index
    %ok = arith.andi %row_ok, %col_ok : i1
    scf.if %ok {
      %v = memref.load %tile[%j, %i] : memref<32x33xf32, #gpu.address_space<workgroup>>
      memref.store %v, %B[%row, %col] : memref<700x1000xf32>
    }
  }
}

// CHECK-LABEL: func.func @transpose_reference
func.func @transpose_reference(%A: memref<1000x700xf32>, %B: memref<700x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c700 = arith.constant 700 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    scf.for %j = %c0 to %c700 step %c1 {
      %v = memref.load %A[%i, %j] : memref<1000x700xf32>
      memref.store %v, %B[%j, %i] : memref<700x1000xf32>
    }
  }
  return
}
