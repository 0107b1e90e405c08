// Global -> fragment (blocked layout, f16 converted to f32 on the way in),
// scale and shift in a tile.parallel over the fragment, fragment -> global
// (f32 to f16). Tiles at offsets, the last one cut by the bounds.
tile.kernel @fragment_scale(%X: memref<100x72xf16>, %Y: memref<100x72xf16>, %s: f32)
    grid [3, 4] threads [64] attributes {reference = @fragment_scale_reference} {
  %one = arith.constant 1.0 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %r0 = affine.apply affine_map<(b) -> (b * 32)>(%by)
  %c0 = affine.apply affine_map<(b) -> (b * 32)>(%bx)
  %f = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  tile.copy %X[%r0, %c0] to %f : memref<100x72xf16> to memref<32x32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %v = memref.load %f[%i, %j] : memref<32x32xf32, #tile.fragment>
    %w = math.fma %v, %s, %one : f32
    memref.store %w, %f[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
  tile.copy %f to %Y[%r0, %c0] : memref<32x32xf32, #tile.fragment> to memref<100x72xf16>
}

func.func @fragment_scale_reference(%X: memref<100x72xf16>, %Y: memref<100x72xf16>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c72 = arith.constant 72 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c100 step %c1 {
    scf.for %j = %c0 to %c72 step %c1 {
      %x = memref.load %X[%i, %j] : memref<100x72xf16>
      %v = arith.extf %x : f16 to f32
      %w = math.fma %v, %s, %one : f32
      %y = arith.truncf %w : f32 to f16
      memref.store %y, %Y[%i, %j] : memref<100x72xf16>
    }
  }
  return
}
