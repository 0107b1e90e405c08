// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-software-pipeline,tile-insert-barriers))' | FileCheck %s --check-prefix=BARRIERS

// Two stages: a buffer per stage, the prologue issues iteration 0 into
// stage 0, the loop runs over pairs of iterations; each waits for its
// copies, passes one barrier, issues the next iteration's copies into the
// other stage (guarded by the trip count) and computes on its own stage.
// CHECK-LABEL: tile.kernel @two_stages
// CHECK: %[[S0:.+]] = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S1:.+]] = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[N:.+]] = arith.maxsi
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
tile.kernel @two_stages(%X: memref<4096xf32>, %Y: memref<64x64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    %off = arith.muli %k, %c64 : index
    tile.copy %X[%off] to %buf : memref<4096xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %i = arith.subi %c64, %tx : index
    %j = arith.subi %i, %c1 : index
    %v = memref.load %buf[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%k, %tx] : memref<64x64xf32>
  }
}

// -----

// Three stages over a dynamic range: the iteration count is
// ceil((ub - lb) / step), at least 0; the copies depend on pure ops of the
// body, cloned with them.
// CHECK-LABEL: tile.kernel @three_stages
// BARRIERS-LABEL: tile.kernel @three_stages
// CHECK-COUNT-3: tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[D:.+]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: arith.ceildivsi %[[D]], %c2
// CHECK-COUNT-2: nvvm.cp.async.commit.group
// CHECK: tile.serial %{{.*}} step %c3
// CHECK: nvvm.cp.async.wait.group 1
tile.kernel @three_stages(%X: memref<?xf32>, %Y: memref<?xf32>, %lb: index, %ub: index) grid [1] threads [32] {
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %lb to %ub step %c2 stages 3 {
    %off = arith.muli %k, %c32 : index
    tile.copy %X[%off] to %buf : memref<?xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %buf[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %o = arith.addi %off, %tx : index
    memref.store %v, %Y[%o] : memref<?xf32>
  }
}

// -----

// Nothing to pipeline: a serial loop.
// CHECK-LABEL: tile.kernel @nothing
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

tile.kernel @impure_producer(%X: memref<4096xf32>, %I: memref<64xindex>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 2 {
    // expected-error @below {{a copy of the pipelined loop depends on this 'memref.load', which is not a pure op: it cannot run stages ahead of the rest of the body}}
    %off = memref.load %I[%k] : memref<64xindex>
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
