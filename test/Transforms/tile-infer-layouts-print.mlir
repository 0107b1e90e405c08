// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts{print svg-dir=%t}))' -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SVG < %t/one_tile.0.svg

// The layout of a fragment as a grid of thread:register per element: the
// m16n8 accumulator of one warp (PTX ISA, mma.m16n8k16 fragment C), and
// the same as an SVG picture.
// CHECK: remark: fragment layout (thread:register of each element)
// CHECK-NEXT: T0:0  T0:1  T1:0  T1:1  T2:0  T2:1  T3:0  T3:1
// CHECK-NEXT: T4:0  T4:1  T5:0  T5:1  T6:0  T6:1  T7:0  T7:1
// CHECK-COUNT-6: T{{[0-9]+}}:0
// CHECK: T0:2  T0:3  T1:2  T1:3  T2:2  T2:3  T3:2  T3:3
// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: one_tile: fragment 0 memref&lt;16x8xf32, #tile.fragment&gt;
// SVG: >T0:0</text>
// SVG: >T31:3</text>
tile.kernel @one_tile() grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
}
