// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{tma=true}))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline{tma=true},tile-insert-barriers))' | FileCheck %s --check-prefix=BARRIERS

// A rolled pipeline with TMA: one mbarrier per stage, initialized by thread
// 0; thread 0 arms a stage with the bytes of its tiles (64x64 f16 and
// 64x128 f16: 8192 + 16384) and issues one tma_load per copy (swizzled
// tiles: swizzle 128); each iteration passes the barrier that frees the
// stage it refills, then waits on its own stage's mbarrier with the parity
// of its round. With the gemm in flight the copies run 2 ahead. No
// cp.async is left, and the stages are aligned to 1024 bytes.
// CHECK-LABEL: tile.kernel @rolled_tma
// CHECK-DAG: tile.alloc_shared {alignment = 1024 : i64} : memref<32768xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: tile.alloc_shared {alignment = 1024 : i64} : memref<65536xi8, #gpu.address_space<workgroup>>
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-4: nvgpu.mbarrier.init %[[BARS]][%{{.+}}], %c1
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.+}}], %c24576
// CHECK: tile.tma_load %A[%{{.+}}, %{{.+}}] to %{{.+}}, %[[BARS]][%{{.+}}] {swizzle = 128 : i64}
// CHECK: tile.tma_load %B[%{{.+}}, %{{.+}}] to %{{.+}}, %[[BARS]][%{{.+}}] {swizzle = 128 : i64}
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: tile.serial %[[IT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT: tile.barrier
// CHECK: %[[NEXT:.+]] = arith.addi %[[IT]], %c2
// CHECK: tile.tma_load
// CHECK: tile.tma_load
// CHECK: %[[STAGE:.+]] = arith.remui %[[IT]], %c4
// CHECK: %[[ROUND:.+]] = arith.divui %[[IT]], %c4
// CHECK: %[[PARITY:.+]] = arith.trunci
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[STAGE]]], %[[PARITY]]
// CHECK: tile.gemm {{.+}}tile.tma_operands, tile.wgmma_in_flight
// CHECK-NOT: nvvm.cp.async
// CHECK: tile.copy
// The barrier insertion adds nothing: the TMA writes of a stage are
// separated from its reads by the loop's barrier.
// BARRIERS-LABEL: tile.kernel @rolled_tma
// BARRIERS-COUNT-1: tile.barrier
// BARRIERS-NOT: tile.barrier
tile.kernel @rolled_tma(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8}, %C: memref<64x128xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %As = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
  tile.clear %acc : memref<64x128xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %n step %c1 stages 4 rolled {
    %off = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %off] to %As : memref<?x?xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%off, %c0] to %Bs : memref<?x?xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
  }
  tile.copy %acc to %C : memref<64x128xf32, #tile.fragment> to memref<64x128xf32>
}

// -----

// A transposed tf32 wgmma gemm (B stored K x N) in flight reads its B^T
// registers asynchronously: the loop runs two copies of the body per
// iteration (step 2, the second under `it + 1 < N`), so consecutive
// iterations load different registers. Each copy has its barrier, copy
// issue and wait. Both tiles are copied rounded to tf32 (`round_tf32`:
// TFLOAT32 tensor maps), so the gemm rounds nothing (tile.tf32_rounded).
// CHECK-LABEL: tile.kernel @rolled_tma_tf32_transposed
// CHECK: tile.tma_load %{{.+}} {round_tf32, swizzle = 128 : i64}
// CHECK-NEXT: tile.tma_load %{{.+}} {round_tf32, swizzle = 128 : i64}
// CHECK: tile.serial %[[IT:.+]] = %c0{{.*}} to %{{.+}} step %c2 {
// CHECK-NEXT: tile.barrier
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: tile.gemm {{.+}}tile.tf32_rounded, tile.tma_operands, tile.wgmma_in_flight
// CHECK: %[[SECOND:.+]] = arith.addi %[[IT]], %c1
// CHECK: %[[INSIDE:.+]] = arith.cmpi slt, %[[SECOND]],
// CHECK: scf.if %[[INSIDE]] {
// CHECK-NEXT: tile.barrier
// CHECK: arith.addi %[[SECOND]], %c2
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: tile.gemm {{.+}}tile.wgmma_in_flight
// CHECK: }
// CHECK-NEXT: }
// CHECK: tile.copy
// Barrier insertion adds nothing to the two barriers of the copies.
// BARRIERS-LABEL: tile.kernel @rolled_tma_tf32_transposed
// BARRIERS-COUNT-2: tile.barrier
// BARRIERS-NOT: tile.barrier
tile.kernel @rolled_tma_tf32_transposed(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>, %C: memref<64x64xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %As = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.clear %acc : memref<64x64xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %n step %c1 stages 4 rolled {
    %off = arith.muli %k, %c32 : index
    tile.copy %A[%c0, %off] to %As : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%off, %c0] to %Bs : memref<2048x512xf32> to memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// Unswizzled tiles: swizzle 0, stages aligned to 128 bytes; without a gemm
// in flight the copies run S - 1 = 2 ahead of a 3-stage loop.
// CHECK-LABEL: tile.kernel @rolled_tma_plain
// BARRIERS-LABEL: tile.kernel @rolled_tma_plain
// CHECK: tile.alloc_shared {alignment = 128 : i64} : memref<6144xi8, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.+}}[%{{.+}}], %c2048
// CHECK: tile.tma_load %X[%{{.+}}, %{{.+}}] to %{{.+}}, %{{.+}}[%{{.+}}] :
// CHECK: tile.serial
// CHECK: arith.addi %{{.+}}, %c2
// CHECK: nvgpu.mbarrier.try_wait.parity
tile.kernel @rolled_tma_plain(%X: memref<?x64xf32>, %Y: memref<?x64xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %Xs = tile.alloc_shared : memref<8x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled {
    %row = arith.muli %k, %c8 : index
    tile.copy %X[%row, %c0] to %Xs : memref<?x64xf32> to memref<8x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<8x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%row, %tx] : memref<?x64xf32>
  }
}

// -----

// Rows of unknown length: their pitch may not be a multiple of 16 bytes.
tile.kernel @unknown_pitch(%X: memref<?x?xf16>, %Y: memref<?x?xf16>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %Xs = tile.alloc_shared : memref<8x64xf16, #gpu.address_space<workgroup>>
  // CHECK-LABEL: tile.kernel @unknown_pitch
  // CHECK: nvvm.cp.async.wait.group
  tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled {
    %row = arith.muli %k, %c8 : index
    // expected-remark @below {{copied with cp.async, not TMA: the source's rows are not known to be multiples of 16 bytes (declare {tile.multiple_of = 8} on the argument)}}
    tile.copy %X[%row, %c0] to %Xs : memref<?x?xf16> to memref<8x64xf16, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<8x64xf16, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%row, %tx] : memref<?x?xf16>
  }
}

// -----

// A source that is a view, neither a kernel argument nor a subview of one.
tile.kernel @cast_source(%X: memref<64x64xf32>, %Y: memref<64xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = tile.thread_id x
  %cast = memref.cast %X : memref<64x64xf32> to memref<?x64xf32>
  %Xs = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    // expected-remark @below {{copied with cp.async, not TMA: its source is neither a memref argument of the kernel nor a subview of one}}
    tile.copy %cast[%k, %c0] to %Xs : memref<?x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<1x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%tx] : memref<64xf32>
  }
}

// -----

// One head of a [heads, seq, d] argument: the subview fixes the leading
// dimension and keeps the others whole, so the copy reads the argument
// through a 3-D box of one head (out of bounds still past the sequence).
// CHECK-LABEL: tile.kernel @head_source
// CHECK: %[[H:.+]] = tile.block_id x
// CHECK: tile.tma_load %X[%[[H]], %{{.+}}, %c0{{.*}}] to %{{.+}} : memref<?x?x64xf32> to memref<8x64xf32, #gpu.address_space<workgroup>>
tile.kernel @head_source(%X: memref<?x?x64xf32>, %Y: memref<64xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %h = tile.block_id x
  %seq = memref.dim %X, %c1 : memref<?x?x64xf32>
  %head = memref.subview %X[%h, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
  %Xs = tile.alloc_shared : memref<8x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    %row = arith.muli %k, %c8 : index
    tile.copy %head[%row, %c0] to %Xs : memref<?x64xf32, strided<[64, 1], offset: ?>> to memref<8x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<8x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%tx] : memref<64xf32>
  }
}

// -----

// A subview that fixes a dimension after one it keeps: the tile is not
// in the innermost dimensions of a box.
tile.kernel @middle_dropped(%X: memref<?x4x64xf32>, %Y: memref<64xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = tile.thread_id x
  %seq = memref.dim %X, %c0 : memref<?x4x64xf32>
  %head = memref.subview %X[0, 2, 0] [%seq, 1, 64] [1, 1, 1] : memref<?x4x64xf32> to memref<?x64xf32, strided<[256, 1], offset: 128>>
  %Xs = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    // expected-remark @below {{copied with cp.async, not TMA: its source is a subview that drops dimension 1 after one it keeps}}
    tile.copy %head[%k, %c0] to %Xs : memref<?x64xf32, strided<[256, 1], offset: 128>> to memref<1x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<1x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%tx] : memref<64xf32>
  }
}

// -----

// A subview that cuts a dimension: TMA would read past the view's end.
tile.kernel @view_source(%X: memref<64x64xf32>, %Y: memref<64xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = tile.thread_id x
  %half = memref.subview %X[0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1]>>
  %Xs = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    // expected-remark @below {{copied with cp.async, not TMA: its source is a subview that does not keep dimension 0 whole (offset 0, the argument's extent): TMA would read the argument past the view's end instead of zeros}}
    tile.copy %half[%k, %c0] to %Xs : memref<32x64xf32, strided<[64, 1]>> to memref<1x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%c0, %tx] : memref<1x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%tx] : memref<64xf32>
  }
}

// -----

// A swizzled tile of 64-byte rows (two rows per 128-byte line) and a box
// over 256 rows keep cp.async.
tile.kernel @narrow_swizzled(%X: memref<?x32xf16>, %Y: memref<?x32xf16>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %Xs = tile.alloc_shared {swizzle = 128} : memref<64x32xf16, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    %row = arith.muli %k, %c64 : index
    // expected-remark @below {{copied with cp.async, not TMA: the 128-byte-swizzled tile has 64-byte rows; TMA writes rows of whole 128-byte panels}}
    tile.copy %X[%row, %c0] to %Xs : memref<?x32xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%tx, %c0] : memref<64x32xf16, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%row, %c0] : memref<?x32xf16>
  }
}

// -----

tile.kernel @tall_box(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %n: index) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %tx = tile.thread_id x
  %Xs = tile.alloc_shared : memref<512x8xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 2 rolled {
    %row = arith.muli %k, %c512 : index
    // expected-remark @below {{copied with cp.async, not TMA: the box has extent 512 in dimension 0, over TMA's limit of 256 elements}}
    tile.copy %X[%row, %c0] to %Xs : memref<?x8xf32> to memref<512x8xf32, #gpu.address_space<workgroup>>
    %v = memref.load %Xs[%tx, %c0] : memref<512x8xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%row, %c0] : memref<?x8xf32>
  }
}
