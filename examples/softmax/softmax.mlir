// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape X=1000x3000 --shape Y=1000x3000 --check
// GPU-SUITE: --shape X=4096x8192 --shape Y=4096x8192 --check --bench
// CPU-SUITE: --shape X=13x1100 --shape Y=13x1100 --check

// Row softmax, Y[r, :] = exp(X[r, :] - max) / sum(exp(X[r, :] - max)), for
// any number of rows and any row length, written at tile level: no thread
// index. Rows here have a length that is a multiple of 4 (16-byte vector
// loads); softmax_any.mlir takes any length (4-byte loads), and
// softmax_resident.mlir keeps rows of up to 4096 columns in registers.
//
// A block takes 4 rows, one per warp: the fragment's layout (given, not
// inferred) puts row i in warp i, 4 consecutive elements per lane and
// register run (one 16-byte load), so a row's reductions are warp
// shuffles only. The row is streamed in chunks of 512 elements, twice:
// - pass 1 keeps a running maximum m and sum l (online softmax): per chunk,
//   the chunk's maximum (tile.reduce max), then l *= exp(m - m_new),
//   m = m_new, and l += sum(exp(x - m)) (tile.reduce add without `clear`
//   accumulates into l);
// - pass 2 writes exp(x - m) / l; its reads hit the L2 cache.
// Columns past the row's end read 0 (tile.copy's bounds) and are masked
// to -inf, so they count for nothing.

// CHECK-LABEL: tile.kernel @softmax
tile.kernel @softmax(%X: memref<?x?xf32> {tile.multiple_of = 4},
                     %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [128] attributes {reference = @softmax_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %bx = tile.block_id x
  %r0 = affine.apply affine_map<(b) -> (b * 4)>(%bx)
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %chunks = arith.ceildivui %n, %c512 : index
  // Row i in warp i; lane l holds columns 128 q + 4 l .. 128 q + 4 l + 3
  // in registers 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, (d1 floordiv 4) * 128 + (d0 mod 32) * 4 + d1 mod 4)>} : memref<4x512xf32, #tile.fragment>
  %cmax = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %m = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  tile.fill %m, %ninf : memref<4xf32, #tile.fragment>
  tile.clear %l : memref<4xf32, #tile.fragment>

  // CHECK: tile.reduce max
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %col = arith.addi %c0k, %j : index
      %inside = arith.cmpi ult, %col, %n : index
      %masked = arith.select %inside, %v, %ninf : f32
      memref.store %masked, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.reduce max %x into %cmax dim 1 clear : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
    tile.parallel (%i) in [4] {
      %mi = memref.load %m[%i] : memref<4xf32, #tile.fragment>
      %ci = memref.load %cmax[%i] : memref<4xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<4xf32, #tile.fragment>
      %mnew = arith.maximumf %mi, %ci : f32
      %delta = arith.subf %mi, %mnew : f32
      %alpha = math.exp %delta : f32
      %lscaled = arith.mulf %li, %alpha : f32
      memref.store %lscaled, %l[%i] : memref<4xf32, #tile.fragment>
      memref.store %mnew, %m[%i] : memref<4xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<4xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.reduce add %x into %l dim 1 : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  }

  // 1 / l once per row.
  tile.parallel (%i) in [4] {
    %li = memref.load %l[%i] : memref<4xf32, #tile.fragment>
    %r = arith.divf %one, %li : f32
    memref.store %r, %l[%i] : memref<4xf32, #tile.fragment>
  }
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c512 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<4x512xf32, #tile.fragment>
    tile.parallel (%i, %j) in [4, 512] {
      %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<4xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<4xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<4x512xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %g = arith.ceildivui %rows, %c4 : index
  tile.yield %g : index
}


// PTX-LABEL: .entry softmax(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: st.global.v4.b32


func.func @softmax_reference(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  scf.for %r = %c0 to %rows step %c1 {
    %max = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %ninf) -> (f32) {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %next = arith.maximumf %acc, %v : f32
      scf.yield %next : f32
    }
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %d = arith.subf %v, %max : f32
      %e = math.exp %d : f32
      %next = arith.addf %acc, %e : f32
      scf.yield %next : f32
    }
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %X[%r, %j] : memref<?x?xf32>
      %d = arith.subf %v, %max : f32
      %e = math.exp %d : f32
      %y = arith.divf %e, %sum : f32
      memref.store %y, %Y[%r, %j] : memref<?x?xf32>
    }
  }
  return
}
