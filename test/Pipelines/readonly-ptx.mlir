// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s

// A memref argument the kernel only reads is loaded through the
// non-coherent path (readonly and noalias pointers, docs/KernelABI.md); one
// it also writes is loaded by a plain ld.global.
// CHECK-LABEL: .entry axpy(
// CHECK-DAG: ld.global.nc.b32 %r{{[0-9]+}}, [%rd[[X:[0-9]+]]];
// CHECK-DAG: ld.global.b32 %r{{[0-9]+}}, [%rd[[Y:[0-9]+]]];
// CHECK: st.global.b32 [%rd[[Y]]],
// CHECK-NOT: ld.global
tile.kernel @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) grid [1] threads [32] {
  %t = tile.thread_id x
  %xv = memref.load %x[%t] : memref<?xf32>
  %yv = memref.load %y[%t] : memref<?xf32>
  %ax = arith.mulf %a, %xv : f32
  %r = arith.addf %ax, %yv : f32
  memref.store %r, %y[%t] : memref<?xf32>
}
