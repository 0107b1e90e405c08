// The NVPTX backend's straight-line strength reduction is off by default:
// x[t * s], x[(t + 1) * s], ... keep their own multiplies (ptxas reduces
// them; the pass cost most of the compile time of unrolled tensor-core
// kernels). With strength-reduction=1 the later addresses are built by
// adding s * 4 to the previous one.
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.off.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t.off.ptx
// RUN: tile-opt %s --tile-to-ptx='strength-reduction=1 ptx-output=%t.on.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ON < %t.on.ptx

// OFF-LABEL: .entry strided(
// OFF-COUNT-3: mul.lo.s64
// OFF-NOT: mul.lo.s64
// OFF: ld.global.b32
// ON-LABEL: .entry strided(
// ON: mul.lo.s64
// ON-NOT: mul.lo.s64
// ON: shl.b64 [[STRIDE:%rd[0-9]+]], %rd{{[0-9]+}}, 2;
// ON: add.s64 [[NEXT:%rd[0-9]+]], %rd{{[0-9]+}}, [[STRIDE]];
// ON-NEXT: ld.global.b32 %r{{[0-9]+}}, [[[NEXT]]];
tile.kernel @strided(%x: memref<?xf32>, %y: memref<?xf32>, %s: index) grid [1] threads [32] {
  %t = tile.thread_id x
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i1 = arith.addi %t, %c1 : index
  %i2 = arith.addi %t, %c2 : index
  %i3 = arith.addi %t, %c3 : index
  %o0 = arith.muli %t, %s : index
  %o1 = arith.muli %i1, %s : index
  %o2 = arith.muli %i2, %s : index
  %o3 = arith.muli %i3, %s : index
  %a = memref.load %x[%o0] : memref<?xf32>
  %b = memref.load %x[%o1] : memref<?xf32>
  %c = memref.load %x[%o2] : memref<?xf32>
  %d = memref.load %x[%o3] : memref<?xf32>
  %ab = arith.addf %a, %b : f32
  %cd = arith.addf %c, %d : f32
  %r = arith.addf %ab, %cd : f32
  memref.store %r, %y[%t] : memref<?xf32>
}
