// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline,tile-insert-barriers))' | FileCheck %s --check-prefix=BARRIERS

// Two stages: a buffer per stage, the prologue issues iteration 0 into
// stage 0, the loop runs over pairs of iterations; each waits for its
// copies, passes one barrier, issues the next iteration's copies into the
// other stage (guarded by the trip count) and computes on its own stage.
// CHECK-LABEL: tile.kernel @two_stages
// CHECK: %[[S0:.+]] = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S1:.+]] = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
// A trip count of 0 to 64 step 1: the difference of the bounds.
// CHECK: %[[N:.+]] = arith.subi %c64, %c0
// CHECK: scf.if
// CHECK:   tile.copy %{{.*}} to %[[S0]] {tile.async}
// CHECK: nvvm.cp.async.commit.group
// CHECK: tile.serial %[[G:.+]] = %{{.*}} to %[[N]] step %c2
// CHECK:   nvvm.cp.async.wait.group 0
// CHECK-NEXT: tile.barrier
// CHECK:   scf.if
// CHECK:     tile.copy %{{.*}} to %[[S1]] {tile.async}
// CHECK:   nvvm.cp.async.commit.group
// CHECK:   memref.load %[[S0]]
// CHECK:   %[[NEXT:.+]] = arith.addi %[[G]], %c1
// CHECK:   %[[IN:.+]] = arith.cmpi slt, %[[NEXT]], %[[N]]
// CHECK:   scf.if %[[IN]] {
// CHECK:     nvvm.cp.async.wait.group 0
// CHECK-NEXT: tile.barrier
// CHECK:     tile.copy %{{.*}} to %[[S0]] {tile.async}
// CHECK:     nvvm.cp.async.commit.group
// CHECK:     memref.load %[[S1]]
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: tile.pipelined
// Barrier insertion adds nothing: the stages are different buffers.
// BARRIERS-LABEL: tile.kernel @two_stages
// BARRIERS-COUNT-2: tile.barrier
// BARRIERS-NOT: tile.barrier
tile.kernel @two_stages(%X: memref<4096xf32>, %Y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %off = arith.muli %k, %c64 : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %i = arith.subi %c64, %tx : index
    %j = arith.subi %i, %c1 : index
    %v = memref.load %buf[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    %a = memref.load %acc[%c0] : memref<1xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %Y[%tx] : memref<64xf32>
}

// -----

// Three stages over a dynamic range: the iteration count is
// ceil((ub - lb) / step), at least 0, and 0 for a step that is not positive
// (no division by zero); the copies depend on pure ops of the body, cloned
// with them.
// CHECK-LABEL: tile.kernel @three_stages
// BARRIERS-LABEL: tile.kernel @three_stages
// CHECK-COUNT-3: tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[POS:.+]] = arith.cmpi sgt, %c2{{.*}}, %c0
// CHECK: %[[DIV:.+]] = arith.select %[[POS]], %c2{{.*}}, %c1
// CHECK: %[[D:.+]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: arith.ceildivsi %[[D]], %[[DIV]]
// CHECK-COUNT-2: nvvm.cp.async.commit.group
// CHECK: tile.serial %{{.*}} step %c3
// CHECK: nvvm.cp.async.wait.group 1
tile.kernel @three_stages(%X: memref<?xf32>, %Y: memref<32xf32>, %lb: index, %ub: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.pipelined %k = %lb to %ub step %c2 stages 3 {
    %off = arith.muli %k, %c32 : index
    tile.copy %X[%off] to %buf : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %a = memref.load %acc[%c0] : memref<1xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %Y[%tx] : memref<32xf32>
}

// -----

// Rolled, three stages: one allocation of three 128-byte stages (the
// 100-byte buffer rounded up), the prologue copies iterations 0 and 1 into
// stages 0 and 1, then one copy of the body per iteration: wait, barrier,
// the copy of iteration it + 2 into stage (it + 2) mod 3, the consumer on
// stage it mod 3.
// CHECK-LABEL: tile.kernel @rolled
// CHECK: %[[RAW:.+]] = tile.alloc_shared {alignment = 16 : i64} : memref<384xi8, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc_shared
// CHECK: %[[SH0:.+]] = arith.muli %c0{{.*}}, %c128
// CHECK: %[[V0:.+]] = memref.view %[[RAW]][%[[SH0]]][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<25xf32, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}} to %[[V0]] {tile.async}
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[SH1:.+]] = arith.muli %c1{{.*}}, %c128
// CHECK: memref.view %[[RAW]][%[[SH1]]][]
// CHECK: nvvm.cp.async.commit.group
// CHECK: tile.serial %[[IT:.+]] = %{{.*}} to %{{.*}} step %c1
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: tile.barrier
// CHECK: %[[AHEAD:.+]] = arith.addi %[[IT]], %c2
// CHECK: %[[NEXT:.+]] = arith.remui %[[AHEAD]], %c3
// CHECK: scf.if
// CHECK:   %[[SHN:.+]] = arith.muli %[[NEXT]], %c128
// CHECK:   %[[VN:.+]] = memref.view %[[RAW]][%[[SHN]]][]
// CHECK:   tile.copy %{{.*}} to %[[VN]] {tile.async}
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[CUR:.+]] = arith.remui %[[IT]], %c3
// CHECK: %[[SHC:.+]] = arith.muli %[[CUR]], %c128
// CHECK: %[[VC:.+]] = memref.view %[[RAW]][%[[SHC]]][]
// CHECK: memref.load %[[VC]]
// CHECK-NOT: tile.barrier
// CHECK: }
// CHECK: nvvm.cp.async.wait.group 0
// Barrier insertion adds nothing: it sees that stage (it + 2) mod 3 is not
// stage it mod 3.
// BARRIERS-LABEL: tile.kernel @rolled
// BARRIERS-COUNT-1: tile.barrier
// BARRIERS-NOT: tile.barrier
tile.kernel @rolled(%X: memref<?xf32>, %Y: memref<32xf32>, %n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c25 = arith.constant 25 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<25xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled {
    %off = arith.muli %k, %c25 : index
    tile.copy %X[%off] to %buf : memref<?xf32> to memref<25xf32, #gpu.address_space<workgroup>>
    %i = arith.remui %tx, %c25 : index
    %v = memref.load %buf[%i] : memref<25xf32, #gpu.address_space<workgroup>>
    %a = memref.load %acc[%c0] : memref<1xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %Y[%tx] : memref<32xf32>
}

// -----

// Rolled with a swizzled buffer: every stage view is marked `tile.swizzle`,
// which tile-apply-swizzles rewrites like the buffer; the allocation keeps
// the swizzle's 128-byte alignment.
// CHECK-LABEL: tile.kernel @rolled_swizzled
// BARRIERS-LABEL: tile.kernel @rolled_swizzled
// CHECK: %[[RAW:.+]] = tile.alloc_shared {alignment = 128 : i64} : memref<49152xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[RAW]][%{{.+}}][] {tile.swizzle}
// CHECK: tile.serial
// CHECK: memref.view %[[RAW]][%{{.+}}][] {tile.swizzle}
// CHECK: memref.view %[[RAW]][%{{.+}}][] {tile.swizzle}
tile.kernel @rolled_swizzled(%X: memref<?x64xf16>, %Y: memref<128x64xf16>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %buf = tile.alloc_shared {swizzle = 128} : memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled {
    %off = arith.muli %k, %c128 : index
    tile.copy %X[%off, %c0] to %buf : memref<?x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %buf to %Y[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16>
  }
}

// -----

// A buffer aligned to 1024 bytes (a wgmma operand: the hardware swizzles
// from 1024-byte atoms) keeps its alignment in every stage: a stage of
// 68x64xf16 (8704 bytes) is rounded up to the alignment, 9216 bytes, so
// stage s starts s x 9216 bytes in.
// CHECK-LABEL: tile.kernel @rolled_atom_aligned
// BARRIERS-LABEL: tile.kernel @rolled_atom_aligned
// CHECK: %[[RAW:.+]] = tile.alloc_shared {alignment = 1024 : i64} : memref<27648xi8, #gpu.address_space<workgroup>>
// CHECK: %[[SHIFT:.+]] = arith.muli %{{.+}}, %c9216
// CHECK: memref.view %[[RAW]][%[[SHIFT]]][] {tile.swizzle}
tile.kernel @rolled_atom_aligned(%X: memref<?x64xf16>, %Y: memref<68x64xf16>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c68 = arith.constant 68 : index
  %buf = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<68x64xf16, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled {
    %off = arith.muli %k, %c68 : index
    tile.copy %X[%off, %c0] to %buf : memref<?x64xf16> to memref<68x64xf16, #gpu.address_space<workgroup>>
    tile.copy %buf to %Y[%c0, %c0] : memref<68x64xf16, #gpu.address_space<workgroup>> to memref<68x64xf16>
  }
}

// -----

// A rolled pipeline around a wgmma gemm whose accumulator nothing else in
// the loop touches: the gemm is left in flight into the next iteration
// (tile.wgmma_in_flight), so a stage is read until the end of the next
// iteration and the copies run S - 2 = 2 iterations ahead: two prologue
// groups, cp.async.wait_group 1, and iteration it fills stage (it + 2) mod 4.
// CHECK-LABEL: tile.kernel @rolled_wgmma
// BARRIERS-LABEL: tile.kernel @rolled_wgmma
// CHECK-COUNT-2: nvvm.cp.async.commit.group
// CHECK: tile.serial %[[IT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: tile.barrier
// CHECK: %[[NEXT:.+]] = arith.addi %[[IT]], %c2
// CHECK: arith.remui %[[NEXT]], %c4
// CHECK: tile.gemm {{.+}}tile.wgmma_in_flight
tile.kernel @rolled_wgmma(%A: memref<?x64xf16>, %B: memref<?x64xf16>, %C: memref<64x64xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %As = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.clear %acc : memref<64x64xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %n step %c1 stages 4 rolled {
    %off = arith.muli %k, %c64 : index
    tile.copy %A[%off, %c0] to %As : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%off, %c0] to %Bs : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// Nothing to pipeline: a serial loop.
// CHECK-LABEL: tile.kernel @nothing
// BARRIERS-LABEL: tile.kernel @nothing
// CHECK: tile.pipelined %{{.*}} stages 1
tile.kernel @nothing(%Y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %f = arith.constant 1.0 : f32
  // expected-remark @below {{nothing to pipeline: no copy from global into a shared buffer allocated outside the loop; the loop runs as a serial loop}}
  tile.pipelined %k = %c0 to %c4 step %c1 stages 2 {
    memref.store %f, %Y[%tx] : memref<64xf32>
  }
}

// -----

tile.kernel @carried_producer(%X: memref<4096xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{a copy of the pipelined loop depends on its loop-carried value #0: the copies run stages ahead of the iteration that computes it}}
  %r = tile.pipelined %k = %c0 to %c64 step %c1 stages 2 iter_args(%off = %c0) -> (index) {
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %next = arith.addi %off, %c64 : index
    tile.yield %next : index
  }
}

// -----

tile.kernel @impure_producer(%X: memref<4096xf32>, %I: memref<64xindex>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    // expected-error @below {{a copy of the pipelined loop depends on this 'memref.load', which has memory effects or regions: it cannot run stages ahead of the rest of the body}}
    %off = memref.load %I[%k] : memref<64xindex>
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// A cross-thread reduction is collective (it synchronizes the block), so it
// cannot run stages ahead of the body as a copy's producer, nor on one
// thread for TMA: its effects say so.
tile.kernel @collective_producer(%X: memref<4096xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %tx = tile.thread_id x
    %t = arith.index_cast %tx : index to i32
    // expected-error @below {{a copy of the pipelined loop depends on this 'tile.thread_allreduce', which has memory effects or regions: it cannot run stages ahead of the rest of the body}}
    %m = tile.thread_allreduce max %t across(x) : i32
    %mi = arith.index_cast %m : i32 to index
    %off = arith.addi %k, %mi : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

tile.kernel @written_in_loop(%X: memref<4096xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %off = arith.muli %k, %c64 : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{'memref.store' may write a shared buffer that the pipelined loop fills asynchronously}}
    memref.store %f, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

tile.kernel @used_after(%X: memref<4096xf32>, %Y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{is used outside the pipelined loop (by 'memref.load'): the pipeline gives it one buffer per stage, so its contents after the loop are not defined}}
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %off = arith.muli %k, %c64 : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
  %v = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %v, %Y[%tx] : memref<64xf32>
}

// -----

tile.kernel @two_copies(%X: memref<4096xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %off = arith.muli %k, %c64 : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a second copy into the same shared buffer in a pipelined loop: only one copy may fill each buffer}}
    tile.copy %X[%k] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// Regressions from review: the loop writes global memory the copies may
// read (stages ahead, they would miss it).
tile.kernel @global_write(%X: memref<64x64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %tx = tile.thread_id x
  %f = arith.constant 1.0 : f32
  %buf = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c63 step %c1 stages 2 {
    tile.copy %X[%k, %c0] to %buf : memref<64x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    %n = arith.addi %k, %c1 : index
    // expected-error @below {{'memref.store' may write global memory that the pipelined loop's copies read stages ahead: they could miss the write}}
    memref.store %f, %X[%n, %tx] : memref<64x64xf32>
  }
}

// -----

// A copy into part of the buffer: each stage would hold a mix of iterations.
tile.kernel @partial_copy(%X: memref<4096xf32>, %Y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c8 step %c1 stages 2 {
    %off = arith.muli %k, %c8 : index
    // expected-error @below {{a copy in a pipelined loop must fill its whole shared buffer: each stage holds one iteration's copy}}
    tile.copy %X[%off] to %buf[%off] shape [8] : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// A thread-private source is not copied ahead (only global memory is).
tile.kernel @local_source(%Y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %loc = tile.alloc_local : memref<64xf32>
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-remark @below {{nothing to pipeline}}
  tile.pipelined %k = %c0 to %c4 step %c1 stages 2 {
    tile.copy %loc to %buf : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

tile.kernel @nested(%X: memref<64x64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  %buf2 = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  // expected-note @below {{the outer pipelined loop}}
  tile.pipelined %i = %c0 to %c8 step %c1 stages 2 {
    tile.copy %X[%i, %c0] to %buf : memref<64x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{a multi-stage pipelined loop inside another: its cp.async waits would also wait for the outer loop's copies, and the outer pipeline would not overlap anything}}
    tile.pipelined %j = %c0 to %c8 step %c1 stages 2 {
      tile.copy %X[%j, %c0] to %buf2 : memref<64x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    }
  }
}

// -----

tile.kernel @in_role(%X: memref<64x64xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  %tbuf = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x64xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    // expected-error @below {{a multi-stage pipelined loop inside a 'tile.warp_specialize' role: its barriers would wait for the whole block; the role's pipeline is the warp_specialize itself}}
    tile.pipelined %j = %c0 to %c8 step %c1 stages 2 {
      tile.copy %X[%j, %c0] to %tbuf : memref<64x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    }
  } consumer(%k, %s) threads 128 {
  }
}

// -----

// A write to another kernel argument is fine: distinct arguments do not
// alias (docs/KernelABI.md).
// CHECK-LABEL: tile.kernel @other_argument
// CHECK: tile.serial
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf32>
tile.kernel @other_argument(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<1x64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    tile.copy %X[%k, %c0] to %buf : memref<64x64xf32> to memref<1x64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%c0, %tx] : memref<1x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%k, %tx] : memref<64x64xf32>
  }
}

// -----

// A carried sum through a two-stage pipeline unrolled by two: the group
// loop carries it, iteration 0 of a group feeds iteration 1, whose guard
// (it may lie past the end) yields the new sum or passes the old one on.
// CHECK-LABEL: tile.kernel @carried_sum
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.+]] = tile.serial %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK:   %[[V0:.+]] = memref.load
// CHECK:   %[[S0:.+]] = arith.addf %[[ACC]], %[[V0]] : f32
// CHECK:   %[[S1:.+]] = scf.if %{{.*}} -> (f32) {
// CHECK:     %[[V1:.+]] = memref.load
// CHECK:     %[[T1:.+]] = arith.addf %[[S0]], %[[V1]] : f32
// CHECK:     scf.yield %[[T1]] : f32
// CHECK:   } else {
// CHECK:     scf.yield %[[S0]] : f32
// CHECK:   }
// CHECK:   tile.yield %[[S1]] : f32
// CHECK: }
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: memref.store %[[SUM]]
tile.kernel @carried_sum(%X: memref<?xf32>, %Y: memref<32xf32>, %n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  %sum = tile.pipelined %k = %c0 to %n step %c1 stages 2 iter_args(%acc = %zero) -> (f32) {
    %off = arith.muli %k, %c32 : index
    tile.copy %X[%off] to %buf : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %acc, %v : f32
    tile.yield %s : f32
  }
  memref.store %sum, %Y[%tx] : memref<32xf32>
}

// -----

// Rolled: the iteration loop carries the sum itself.
// CHECK-LABEL: tile.kernel @carried_sum_rolled
// CHECK: %[[SUM:.+]] = tile.serial %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.+]] = %{{.*}}) -> (f32) {
// CHECK:   nvvm.cp.async.wait.group 1
// CHECK:   %[[V:.+]] = memref.load
// CHECK:   %[[S:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK:   tile.yield %[[S]] : f32
// CHECK: }
// CHECK: memref.store %[[SUM]]
tile.kernel @carried_sum_rolled(%X: memref<?xf32>, %Y: memref<32xf32>, %n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  %sum = tile.pipelined %k = %c0 to %n step %c1 stages 3 rolled iter_args(%acc = %zero) -> (f32) {
    %off = arith.muli %k, %c32 : index
    tile.copy %X[%off] to %buf : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %acc, %v : f32
    tile.yield %s : f32
  }
  memref.store %sum, %Y[%tx] : memref<32xf32>
}
