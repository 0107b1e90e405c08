// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments))' | FileCheck %s
// RUN: not tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-lower-fragments))' 2>&1 | FileCheck %s --check-prefix=NOLAYOUT

// A row spread over all 64 threads (4 rows, one per register): each thread's
// registers are one slot each; the lanes combine with an xor butterfly
// (16, 8, 4, 2, 1), the two warps through a shared buffer of one word per
// (slot, thread) between two barriers... the second only when the
// reduction runs in a loop (the next iteration rewrites the buffer).
// Without `clear` the result is combined with the target's value.
// CHECK-LABEL: tile.kernel @rows_over_block
// CHECK-DAG: %[[SCRATCH:.+]] = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[SUM:.+]] = tile.alloc_local : memref<4xf32>
// CHECK: tile.serial
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: tile.barrier
// CHECK: memref.load %[[SCRATCH]]
// CHECK: memref.load %[[SCRATCH]]
// CHECK: arith.addf
// CHECK: tile.barrier
// CHECK: %[[OLD:.+]] = memref.load %[[SUM]]
// CHECK: arith.addf %[[OLD]]
tile.kernel @rows_over_block(%X: memref<4x64xf32>, %Y: memref<4xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sum = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 64], threads = 64, registers = 4, map = (d0, d1) -> (d1, d0)>} : memref<4x64xf32, #tile.fragment>
  tile.clear %sum : memref<4xf32, #tile.fragment>
  tile.serial %k = %c0 to %c4 step %c1 {
    tile.copy %X[%c0, %c0] to %x : memref<4x64xf32> to memref<4x64xf32, #tile.fragment>
    tile.reduce add %x into %sum dim 1 : memref<4x64xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  }
  tile.copy %sum to %Y[%c0] : memref<4xf32, #tile.fragment> to memref<4xf32>
}

// -----

// The mma accumulator of one warp (m16n8): a row is held by the 4 lanes of
// a quad, 2 registers each, so each thread first adds its 2 registers per
// row (2 rows: 2 slots), then 2 shuffles (xor 2, 1) per slot: no shared
// memory. The copy out of the replicated result is written by lane 0 of
// each quad only (thread bits 0 and 1 clear).
// CHECK-LABEL: tile.kernel @quad_rows
// CHECK-NOT: tile.alloc_shared : memref<{{[0-9]+}}xf32
// CHECK: %[[MAX:.+]] = tile.alloc_local : memref<2xf32>
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: tile.barrier
// CHECK: %[[BITS:.+]] = arith.andi %{{.*}}, %c3
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[BITS]]
// CHECK: scf.if %[[FIRST]]
// CHECK-COUNT-2: tile.copy %[[MAX]]
tile.kernel @quad_rows(%Y: memref<16xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  %max = tile.alloc_fragment : memref<16xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<scalar>} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
  tile.reduce max %acc into %max dim 1 clear : memref<16x8xf32, #tile.fragment> into memref<16xf32, #tile.fragment>
  tile.copy %max to %Y[%c0] : memref<16xf32, #tile.fragment> to memref<16xf32>
}

// -----

// A reduction before layout inference: the fragment has no layout yet.
tile.kernel @not_inferred() grid [1] threads [32] {
  // NOLAYOUT: tile-lower-fragments-reduce.mlir:[[@LINE+1]]:8: error: 'tile.alloc_fragment' op has no layout: run tile-infer-layouts before tile-lower-fragments
  %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
  %s = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  tile.reduce add %x into %s dim 1 : memref<4x64xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
}

// -----

// A row statistic reduced from 32x16 scores (8 registers, 2 slots: rows
// lane/4 and lane/4 + 8 of the warp's 16) read as a broadcast over a 32x32
// output (16 registers): each output register reads the slot of its row,
// which mapRegisters finds (c0 c1 of an m16n8 tile are the upper row, c2 c3
// the lower one), not the register of the same number.
// CHECK-LABEL: tile.kernel @reduced_widths
// CHECK: %[[L:.+]] = tile.alloc_local : memref<2xf32>
// CHECK: memref.load %[[L]][%c0{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c0{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c1{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c1{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c0{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c0{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c1{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
// CHECK: memref.load %[[L]][%c1{{(_[0-9]+)?}}] : memref<2xf32>
// CHECK-NEXT: arith.divf
tile.kernel @reduced_widths(%Y: memref<32x32xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %Qs = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<32x16xf32, #tile.fragment>
  %O = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  tile.gemm %Qs, %Ks, %S {clear, warps = array<i64: 2, 1>, lowering = #tile.gemm_lowering<scalar>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<32x16xf32, #tile.fragment>
  tile.gemm %Qs, %Vs, %O {clear, warps = array<i64: 2, 1>, lowering = #tile.gemm_lowering<scalar>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.reduce add %S into %l dim 1 clear : memref<32x16xf32, #tile.fragment> into memref<32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %o = memref.load %O[%i, %j] : memref<32x32xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
    %r = arith.divf %o, %li : f32
    memref.store %r, %O[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
  tile.copy %O to %Y[%c0, %c0] : memref<32x32xf32, #tile.fragment> to memref<32x32xf32>
}
