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
