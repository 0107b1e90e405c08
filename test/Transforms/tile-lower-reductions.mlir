// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-lower-reductions,canonicalize,cse))' | FileCheck %s

// Across x in one warp: a butterfly of 5 shuffles, no shared memory, no
// barrier.
// CHECK-LABEL: tile.kernel @warp_x
// CHECK-NOT: tile.alloc_shared
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: tile.barrier
tile.kernel @warp_x(%out: memref<1xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// -----

// Across y only in a [2, 32] block (TileLang's GEMV): y is bits 1-5 of the
// linear thread index. Lanes: xor 16, 8, 4, 2 (not 1: that is x). The warp
// bit (32) goes through shared memory: two partials per group, two barriers.
// CHECK-LABEL: tile.kernel @across_y
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i32
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i32
// CHECK: %[[SLOTS:.+]] = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle xor %{{.*}}, %[[C16]]
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor %{{.*}}, %[[C2]]
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.*}}, %[[SLOTS]]
// CHECK: tile.barrier
// CHECK: memref.load %[[SLOTS]]
// CHECK: memref.load %[[SLOTS]]
// CHECK: tile.barrier
tile.kernel @across_y(%out: memref<2xf32>) grid [1] threads [2, 32] {
  %tx = tile.thread_id x
  %f = arith.constant 1.0 : f32
  %s = tile.thread_allreduce add %f across(y) : f32
  memref.store %s, %out[%tx] : memref<2xf32>
}

// -----

// f16 travels in the low half of a 32-bit shuffle.
// CHECK-LABEL: tile.kernel @packed_f16
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: gpu.shuffle xor %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: arith.maximumf %{{.*}} : f16
tile.kernel @packed_f16(%out: memref<1xf16>) grid [1] threads [2] {
  %c0 = arith.constant 0 : index
  %h = memref.load %out[%c0] : memref<1xf16>
  %s = tile.thread_allreduce max %h across(x) : f16
  memref.store %s, %out[%c0] : memref<1xf16>
}

// -----

// A non-power-of-two extent: a shared-memory tree. Groups of 3 take
// ceil(log2(3)) = 2 steps, each followed by a barrier.
// CHECK-LABEL: tile.kernel @tree
// CHECK: tile.alloc_shared : memref<15xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store
// CHECK-NEXT: tile.barrier
// CHECK: scf.if
// CHECK:   arith.xori
// CHECK: tile.barrier
// CHECK: scf.if
// CHECK:   arith.xori
// CHECK: tile.barrier
// CHECK: memref.load
// CHECK-NEXT: tile.barrier
tile.kernel @tree(%out: memref<5xi32>) grid [1] threads [3, 5] {
  %ty = tile.thread_id y
  %tx = tile.thread_id x
  %v = arith.index_cast %tx : index to i32
  %s = tile.thread_allreduce xor %v across(x) : i32
  memref.store %s, %out[%ty] : memref<5xi32>
}

// -----

// Buffer form, across z of [8, 8, 4] (gemm/best's quarters): z is bits 6-7,
// both warp bits, so no shuffle. Four members meet in one shared buffer,
// element-major (256 slots per element; the 4 elements fit): each thread
// stores element e at e * 256 + its linear index L; a barrier; member m
// (bits 6-7 of L) combines element m over the 4 members in order and
// stores it in member 0's slot (L with bits 6-7 cleared: L & -193); a
// barrier; every thread reads the 4 results from member 0's slots back into
// its buffer; a barrier.
// CHECK-LABEL: tile.kernel @buffer_across_z
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[NOTZ:.+]] = arith.constant -193 : index
// CHECK: %[[SCRATCH:.+]] = tile.alloc_shared : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<2x2xf32>
// CHECK-NOT: gpu.shuffle
// CHECK: %[[L:.+]] = arith.addi %tx, %{{.*}} : index
// CHECK: %[[MEMBER:.+]] = arith.ori
// CHECK: %[[FIRST:.+]] = arith.andi %[[L]], %[[NOTZ]] : index
// CHECK: %[[E0:.+]] = memref.load %[[ACC]]
// CHECK: memref.store %[[E0]], %[[SCRATCH]][%[[L]]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: tile.barrier
// CHECK: scf.for %[[E:.+]] = %[[MEMBER]] to %[[C4]] step %[[C4]] {
// CHECK: %[[ROW:.+]] = arith.muli %[[E]], %[[C256]] : index
// CHECK: %[[SLOT0:.+]] = arith.addi %[[ROW]], %[[FIRST]] : index
// CHECK: memref.load %[[SCRATCH]][%[[SLOT0]]]
// CHECK-COUNT-3: memref.load %[[SCRATCH]]
// CHECK: memref.store %{{.*}}, %[[SCRATCH]][%[[SLOT0]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[R0:.+]] = memref.load %[[SCRATCH]][%[[FIRST]]]
// CHECK-NEXT: memref.store %[[R0]], %[[ACC]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[ACC]]
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.barrier
tile.kernel @buffer_across_z() grid [1] threads [8, 8, 4] {
  %acc = tile.alloc_local : memref<2x2xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<2x2xf32>
  tile.thread_allreduce add %acc across(z) : memref<2x2xf32>
}

// -----

// Buffer form across x in one warp: each element through its own butterfly,
// nothing in shared memory.
// CHECK-LABEL: tile.kernel @buffer_across_lanes
// CHECK-NOT: tile.alloc_shared
// CHECK-COUNT-15: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: tile.barrier
tile.kernel @buffer_across_lanes() grid [1] threads [32] {
  %acc = tile.alloc_local : memref<3xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<3xf32>
  tile.thread_allreduce max %acc across(x) : memref<3xf32>
}

// -----

// A buffer larger than the 32 KiB staging budget goes through it in chunks:
// 64 f32 over 256 threads is 64 KiB, two chunks of 32, three barriers each.
// CHECK-LABEL: tile.kernel @buffer_chunks
// CHECK: tile.alloc_shared : memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-6: tile.barrier
// CHECK-NOT: tile.barrier
tile.kernel @buffer_chunks() grid [1] threads [64, 4] {
  %acc = tile.alloc_local : memref<8x8xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<8x8xf32>
  tile.thread_allreduce add %acc across(y) : memref<8x8xf32>
}

// -----

// Buffer form in a block that is not a power of two: every thread of the
// group (3 along y) is a member; no shuffle.
// CHECK-LABEL: tile.kernel @buffer_tree
// CHECK: %[[SCRATCH:.+]] = tile.alloc_shared : memref<30xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.shuffle
// CHECK: tile.barrier
// CHECK: scf.for
// CHECK-COUNT-3: memref.load %[[SCRATCH]]
// CHECK: arith.addi
// CHECK: tile.barrier
tile.kernel @buffer_tree() grid [1] threads [5, 3] {
  %acc = tile.alloc_local : memref<2xi32>
  %c1 = arith.constant 1 : i32
  tile.fill %acc, %c1 : memref<2xi32>
  tile.thread_allreduce add %acc across(y) : memref<2xi32>
}

// -----

// Lanes and warps in one op: across x and y of [8, 8, 4] is bits 0-5, lane
// bits 0-4 (five shuffles per element, f16 in a 32-bit shuffle) and warp
// bit 5 (two members through shared memory, one f16 slot per thread).
// CHECK-LABEL: tile.kernel @buffer_lanes_and_warps
// CHECK: tile.alloc_shared : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: tile.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// CHECK-COUNT-2: memref.load
// CHECK: arith.maximumf %{{.*}} : f16
tile.kernel @buffer_lanes_and_warps() grid [1] threads [8, 8, 4] {
  %acc = tile.alloc_local : memref<2xf16>
  %one = arith.constant 1.0 : f16
  tile.fill %acc, %one : memref<2xf16>
  tile.thread_allreduce max %acc across(x, y) : memref<2xf16>
}

// -----

// Warp bits that are not contiguous: across x and z of [64, 2, 2] is lane
// bits 0-4, warp bit 5 (x) and warp bit 7 (z), not bit 6 (y). Member 0 of a
// group is L with bits 5 and 7 cleared (L & -161); four members.
// CHECK-LABEL: tile.kernel @buffer_split_warp_bits
// CHECK-DAG: %[[NOT:.+]] = arith.constant -161 : index
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: arith.andi %{{.*}}, %[[NOT]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK-COUNT-4: memref.load
tile.kernel @buffer_split_warp_bits() grid [1] threads [64, 2, 2] {
  %acc = tile.alloc_local : memref<1xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<1xf32>
  tile.thread_allreduce add %acc across(x, z) : memref<1xf32>
}

// -----

// A group of more than 32 members (60 threads of [5, 12]) combines its
// partials with a loop instead of 60 loads in a row.
// CHECK-LABEL: tile.kernel @buffer_large_group
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c1 to %c60 step %c1 iter_args
// CHECK: memref.load
// CHECK: arith.addf
// CHECK: scf.yield
tile.kernel @buffer_large_group() grid [1] threads [5, 12] {
  %acc = tile.alloc_local : memref<2xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<2xf32>
  tile.thread_allreduce add %acc across(x, y) : memref<2xf32>
}

// -----

// Two buffer reductions of a kernel share one shared buffer, sized for the
// larger (8 f32 elements per thread of 128).
// CHECK-LABEL: tile.kernel @buffer_scratch_shared
// CHECK: tile.alloc_shared : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc_shared
tile.kernel @buffer_scratch_shared() grid [1] threads [32, 4] {
  %a = tile.alloc_local : memref<2xf32>
  %b = tile.alloc_local : memref<8xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %a, %one : memref<2xf32>
  tile.fill %b, %one : memref<8xf32>
  tile.thread_allreduce add %a across(y) : memref<2xf32>
  tile.thread_allreduce add %b across(y) : memref<8xf32>
}
