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

// Two reductions in a row that do not read each other's results (a layer
// norm's sum and sum of squares, here a sum and a maximum) share their trip
// through shared memory: both shuffle trees, then both partials into one
// buffer of 2 x 64 slots, one barrier, both combined, one barrier (in a
// loop) for the two. The sum's slots come first; each result goes to its
// own target.
// CHECK-LABEL: tile.kernel @two_reductions
// CHECK-DAG: %[[SCRATCH:.+]] = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[SUM:.+]] = tile.alloc_local : memref<1xf32>
// CHECK-DAG: %[[MAX:.+]] = tile.alloc_local : memref<1xf32>
// CHECK: tile.serial
// CHECK-COUNT-10: gpu.shuffle  xor
// CHECK-NOT: tile.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK-NOT: tile.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.barrier
// CHECK: arith.addf
// CHECK-NOT: tile.barrier
// CHECK: arith.maximumf
// CHECK: tile.barrier
// CHECK-NOT: tile.barrier
// CHECK: memref.store %{{.*}}, %[[SUM]]
// CHECK: memref.store %{{.*}}, %[[MAX]]
// CHECK-NOT: tile.barrier
// CHECK: tile.copy %[[SUM]]
tile.kernel @two_reductions(%X: memref<1x64xf32>, %Y: memref<1xf32>, %Z: memref<1xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sum = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %max = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 64], threads = 64, registers = 1, map = (d0, d1) -> (d1, d0)>} : memref<1x64xf32, #tile.fragment>
  tile.serial %k = %c0 to %c4 step %c1 {
    tile.copy %X[%c0, %c0] to %x : memref<1x64xf32> to memref<1x64xf32, #tile.fragment>
    tile.reduce add %x into %sum dim 1 clear : memref<1x64xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.reduce max %x into %max dim 1 clear : memref<1x64xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  tile.copy %sum to %Y[%c0] : memref<1xf32, #tile.fragment> to memref<1xf32>
  tile.copy %max to %Z[%c0] : memref<1xf32, #tile.fragment> to memref<1xf32>
}

// -----

// A reduction of what the one before it wrote goes on its own: two trips
// through shared memory (each row over 64 threads, two warps; then the 4
// row sums over the 4 groups of two warps), each with its buffer and
// barrier.
// CHECK-LABEL: tile.kernel @dependent_reductions
// CHECK-DAG: %[[FIRST:.+]] = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[SECOND:.+]] = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.+}}, %[[SECOND]]
// CHECK-NEXT: tile.barrier
// CHECK: memref.store %{{.+}}, %[[FIRST]]
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.barrier
tile.kernel @dependent_reductions(%X: memref<4x512xf32>, %Y: memref<1xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %rows = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %total = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 256, registers = 8, map = (d0, d1) -> (d0 floordiv 64, (d0 mod 64) * 8 + d1)>} : memref<4x512xf32, #tile.fragment>
  tile.copy %X[%c0, %c0] to %x : memref<4x512xf32> to memref<4x512xf32, #tile.fragment>
  tile.reduce add %x into %rows dim 1 clear : memref<4x512xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
  tile.reduce add %rows into %total dim 0 clear : memref<4xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  tile.copy %total to %Y[%c0] : memref<1xf32, #tile.fragment> to memref<1xf32>
}

// A row vector that every thread holds whole (a replicated source) is
// reduced within each thread: its copies are not added together (they
// were, 64 times over, before 2026-11-29).
// CHECK-LABEL: tile.kernel @replicated_source
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: tile.barrier
// CHECK: arith.addf
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: tile.barrier
// CHECK: tile.copy
tile.kernel @replicated_source(%X: memref<2xf32>, %Y: memref<1xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %row = tile.alloc_fragment {layout = #tile.layout<shape = [2], threads = 64, registers = 2, map = (d0, d1) -> (d1)>} : memref<2xf32, #tile.fragment>
  %total = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.copy %X[%c0] to %row : memref<2xf32> to memref<2xf32, #tile.fragment>
  tile.reduce add %row into %total dim 0 clear : memref<2xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  tile.copy %total to %Y[%c0] : memref<1xf32, #tile.fragment> to memref<1xf32>
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
