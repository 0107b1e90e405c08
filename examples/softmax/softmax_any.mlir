// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX-ANY < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape X=1000x3001 --shape Y=1000x3001 --check
// GPU-SUITE: --shape X=4096x50257 --shape Y=4096x50257 --check --bench
// CPU-SUITE: --shape X=9x1003 --shape Y=9x1003 --check

// Rows of any length (1000, 3000, 50257 columns): the same kernel without
// `tile.multiple_of = 4`. A row need not start on 16 bytes, so the loads
// are 4-byte ones, and the layout gives consecutive columns to consecutive
// lanes (column 32 q + l in lane l, register q) so that each warp-wide load
// reads 128 contiguous bytes.
// CHECK-LABEL: tile.kernel @softmax_any
tile.kernel @softmax_any(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
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
  // Row i in warp i; lane l holds column 32 q + l in register q.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, d1 * 32 + d0 mod 32)>} : memref<4x512xf32, #tile.fragment>
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

// PTX-ANY-LABEL: .entry softmax_any(
// PTX-ANY-DAG: ld.global.b32
// PTX-ANY-DAG: shfl.sync.bfly.b32
// PTX-ANY-DAG: st.global.b32

// The reference is softmax.mlir's.
func.func private @softmax_reference(memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "softmax.mlir"}
