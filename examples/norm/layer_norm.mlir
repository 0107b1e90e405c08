// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape X=1000x3000 --shape W=3000 --shape B=3000 --shape Y=1000x3000 --check
// GPU-SUITE: --shape X=4096x8192 --shape W=8192 --shape B=8192 --shape Y=4096x8192 --check --bench
// CPU-SUITE: --shape X=13x1100 --shape W=1100 --shape B=1100 --shape Y=13x1100 --check

// Layer norm over rows, Y = (X - mean) / sqrt(var + 1e-5) * W + B, for any
// number of rows and any row length that is a multiple of 4 (16-byte
// loads; layer_norm_any.mlir takes any), at tile level. As
// examples/softmax: 4 rows per block, one per warp (an explicit layout: a
// row's reductions are shuffles), rows streamed in chunks of 512.
// Pass 1 accumulates the sum and the sum of squares of each row with
// `tile.reduce add` (no `clear`: into the running sums); columns past the
// end read 0 and add nothing. var = E[x^2] - mean^2 (one pass; f32, as
// accurate as the data's mean is small next to its spread). Pass 2
// normalizes; W and B are fragments of one chunk's columns, read in the
// loop over (row, column) as `%w[%j]`: broadcasts along rows, whose layout
// inference derives from the rows' layout.

// CHECK-LABEL: tile.kernel @layer_norm
tile.kernel @layer_norm(%X: memref<?x?xf32> {tile.multiple_of = 4},
                        %W: memref<?xf32> {tile.multiple_of = 4},
                        %B: memref<?xf32> {tile.multiple_of = 4},
                        %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [128] attributes {reference = @layer_norm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %eps = arith.constant 1.0e-5 : f32
  %bx = tile.block_id x
  %r0 = affine.apply affine_map<(b) -> (b * 4)>(%bx)
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c512 : index
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, (d1 floordiv 4) * 128 + (d0 mod 32) * 4 + d1 mod 4)>} : memref<4x512xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<512xf32, #tile.fragment>
  %b = tile.alloc_fragment : memref<512xf32, #tile.fragment>
  %mean = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  tile.clear %mean : memref<4xf32, #tile.fragment>
  tile.clear %rstd : memref<4xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.reduce add %x into %mean dim 1 : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %sq = arith.mulf %v, %v : f32
      memref.store %sq, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.reduce add %x into %rstd dim 1 : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  }
  // The sums become the mean and 1 / sqrt(var + eps).
  tile.parallel (%i) in [4] {
    %s = memref.load %mean[%i] : memref<4xf32, #tile.fragment>
    %s2 = memref.load %rstd[%i] : memref<4xf32, #tile.fragment>
    %mu = arith.divf %s, %nf : f32
    %ex2 = arith.divf %s2, %nf : f32
    %mu2 = arith.mulf %mu, %mu : f32
    %var = arith.subf %ex2, %mu2 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    memref.store %mu, %mean[%i] : memref<4xf32, #tile.fragment>
    memref.store %r, %rstd[%i] : memref<4xf32, #tile.fragment>
  }
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<512xf32, #tile.fragment>
    tile.copy %B[%c0k] to %b : memref<?xf32> to memref<512xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<4xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<4xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<512xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<512xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<4x512xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %g = arith.ceildivui %rows, %c4 : index
  tile.yield %g : index
}


// PTX-LABEL: .entry layer_norm(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: st.global.v4.b32

func.func @layer_norm_reference(%X: memref<?x?xf32>, %W: memref<?xf32>,
                                %B: memref<?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  scf.for %r = %c0 to %rows step %c1 {
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %next = arith.addf %acc, %v : f32
      scf.yield %next : f32
    }
    %mean = arith.divf %sum, %nf : f32
    %ss = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %d = arith.subf %v, %mean : f32
      %next = math.fma %d, %d, %acc : f32
      scf.yield %next : f32
    }
    %var = arith.divf %ss, %nf : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %rstd = arith.divf %one, %sd : f32
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %w = memref.load %W[%j] : memref<?xf32>
      %b = memref.load %B[%j] : memref<?xf32>
      %d = arith.subf %v, %mean : f32
      %nrm = arith.mulf %d, %rstd : f32
      %y = math.fma %nrm, %w, %b : f32
      memref.store %y, %Y[%r, %j] : memref<?x?xf32>
    }
  }
  return
}
