// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape X=1000x3000 --shape W=3000 --shape Y=1000x3000 --check
// GPU-SUITE: --shape X=4096x8192 --shape W=8192 --shape Y=4096x8192 --check --bench
// CPU-SUITE: --shape X=13x1100 --shape W=1100 --shape Y=13x1100 --check

// RMS norm over rows, Y = X / sqrt(mean(X^2) + 1e-6) * W, for any number of
// rows and any row length that is a multiple of 4 (rms_norm_any.mlir
// takes any), at tile level: the layer norm of
// examples/norm/layer_norm.mlir without the mean. Pass 1
// accumulates each row's sum of squares (`tile.reduce add` into the
// running sum), pass 2 scales; W is a fragment of one chunk's columns read
// as `%w[%j]` (a broadcast along rows).

// CHECK-LABEL: tile.kernel @rms_norm
tile.kernel @rms_norm(%X: memref<?x?xf32> {tile.multiple_of = 4},
                      %W: memref<?xf32> {tile.multiple_of = 4},
                      %Y: memref<?x?xf32> {tile.multiple_of = 4})
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
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, (d1 floordiv 4) * 128 + (d0 mod 32) * 4 + d1 mod 4)>} : memref<4x512xf32, #tile.fragment>
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


// PTX-LABEL: .entry rms_norm(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: st.global.v4.b32

func.func @rms_norm_reference(%X: memref<?x?xf32>, %W: memref<?xf32>,
                              %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  scf.for %r = %c0 to %rows step %c1 {
    %ss = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %next = math.fma %v, %v, %acc : f32
      scf.yield %next : f32
    }
    %ms = arith.divf %ss, %nf : f32
    %me = arith.addf %ms, %eps : f32
    %rms = math.sqrt %me : f32
    %scale = arith.divf %one, %rms : f32
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %w = memref.load %W[%j] : memref<?xf32>
      %nrm = arith.mulf %v, %scale : f32
      %y = arith.mulf %nrm, %w : f32
      memref.store %y, %Y[%r, %j] : memref<?x?xf32>
    }
  }
  return
}
