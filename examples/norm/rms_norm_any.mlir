// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX-ANY < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape X=1000x3001 --shape W=3001 --shape Y=1000x3001 --check
// GPU-SUITE: --shape X=4096x50257 --shape W=50257 --shape Y=4096x50257 --check --bench
// CPU-SUITE: --shape X=9x1003 --shape W=1003 --shape Y=9x1003 --check

// Rows of any length: the same kernel without `tile.multiple_of = 4`
// (4-byte loads, column 32 q + l in lane l, register q, so that each
// warp-wide load reads 128 contiguous bytes), as examples/softmax's
// softmax_any.mlir.
// CHECK-LABEL: tile.kernel @rms_norm_any
tile.kernel @rms_norm_any(%X: memref<?x?xf32>,
                      %W: memref<?xf32>,
                      %Y: memref<?x?xf32>)
    grid [?] threads [128] attributes {reference = @rms_norm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %eps = arith.constant 1.0e-6 : f32
  %bx = tile.block_id x
  %r0 = affine.apply affine_map<(b) -> (b * 4)>(%bx)
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c512 : index
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, d1 * 32 + d0 mod 32)>} : memref<4x512xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<4x512xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<512xf32, #tile.fragment>
  %scale = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  tile.clear %scale : memref<4xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.reduce add %sq into %scale dim 1 : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  }
  // The sums of squares become 1 / sqrt(mean + eps).
  tile.parallel (%i) in [4] {
    %s = memref.load %scale[%i] : memref<4xf32, #tile.fragment>
    %ms = arith.divf %s, %nf : f32
    %me = arith.addf %ms, %eps : f32
    %r = math.rsqrt %me : f32
    memref.store %r, %scale[%i] : memref<4xf32, #tile.fragment>
  }
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<512xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %r = memref.load %scale[%i] : memref<4xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<512xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<4x512xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %g = arith.ceildivui %rows, %c4 : index
  tile.yield %g : index
}

// PTX-ANY-LABEL: .entry rms_norm_any(
// PTX-ANY-DAG: ld.global.b32
// PTX-ANY-DAG: shfl.sync.bfly.b32
// PTX-ANY-DAG: st.global.b32

// The reference is rms_norm.mlir's.
func.func private @rms_norm_reference(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "rms_norm.mlir"}
