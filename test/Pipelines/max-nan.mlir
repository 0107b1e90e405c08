// A maximum (arith.maximumf, and the combining step of tile.reduce max) is
// one NaN-propagating max.NaN.f32 in the PTX on sm_80 and later, not the
// compare, NaN test and two selects arith-expand makes of it
// (tile-math-to-intrinsics runs first). The row maximum of 8 values per
// thread: 7 maxima in the thread, then 2 across the lanes of a quad.
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s < %t.row_max.ptx
// RUN: FileCheck %s --check-prefix=EXP2 < %t.exp2.ptx
// RUN: tile-opt %s --tile-to-ptx='chip=sm_70 ptx-output=%t.sm70.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=SM70 < %t.sm70.row_max.ptx

// CHECK-LABEL: .entry row_max(
// CHECK-NOT: setp.nan
// CHECK: max.NaN.f32
// CHECK-NOT: setp.nan
// CHECK: shfl.sync.bfly.b32
// CHECK-NOT: setp.nan
// CHECK: max.NaN.f32
// CHECK-NOT: setp.nan
// CHECK: st.global
// Before sm_80 PTX has no max.NaN: LLVM expands it.
// SM70-LABEL: .entry row_max(
// SM70-NOT: max.NaN
// SM70: max.f32
tile.kernel @row_max(%x: memref<16x16xf32>, %y: memref<16xf32>, %a: f32, %b: f32, %z: memref<1xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %f = tile.alloc_fragment : memref<16x16xf32, #tile.fragment<mma_accumulator>>
  %r = tile.alloc_fragment : memref<16xf32, #tile.fragment>
  tile.copy %x to %f : memref<16x16xf32> to memref<16x16xf32, #tile.fragment<mma_accumulator>>
  tile.reduce max %f into %r dim 1 clear : memref<16x16xf32, #tile.fragment<mma_accumulator>> into memref<16xf32, #tile.fragment>
  tile.copy %r to %y : memref<16xf32, #tile.fragment> to memref<16xf32>
  %m = arith.maximumf %a, %b : f32
  memref.store %m, %z[%c0] : memref<1xf32>
}

// exp2 with fastmath<afn>: ex2.approx.ftz.f32; without it, libdevice's
// ex2.approx.f32.
// EXP2-LABEL: .entry exp2(
// EXP2: ex2.approx.ftz.f32
// EXP2: ex2.approx.f32
tile.kernel @exp2(%x: memref<2xf32>, %a: f32) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = math.exp2 %a fastmath<afn> : f32
  %p = math.exp2 %a : f32
  memref.store %e, %x[%c0] : memref<2xf32>
  memref.store %p, %x[%c1] : memref<2xf32>
}
