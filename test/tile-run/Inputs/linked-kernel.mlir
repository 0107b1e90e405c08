// A kernel whose reference is defined in another file (linked-reference.mlir,
// beside this one): tile-run links it in. link-definitions.test runs it.
tile.kernel @scale(%x: memref<?xf32>, %alpha: f32) grid [4] threads [64]
    attributes {reference = @scale_reference} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %base = arith.muli %bx, %c64 : index
  %i = arith.addi %base, %tx : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %inside = arith.cmpi ult, %i, %n : index
  scf.if %inside {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
}

func.func private @scale_reference(memref<?xf32>, f32)
    attributes {tile.defined_in = "linked-reference.mlir"}
