// Definitions that test/tile-run/Inputs/linked-kernel.mlir declares. The
// reference calls a helper, which is linked in with it; the unused function
// is not.
func.func @scale_reference(%x: memref<?xf32>, %alpha: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = func.call @multiply(%v, %alpha) : (f32, f32) -> f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
  return
}

func.func @multiply(%a: f32, %b: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  return %p : f32
}

func.func @unused_reference(%x: memref<?xf32>) {
  return
}
