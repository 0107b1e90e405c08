// RUN: tile-opt %s -split-input-file --tile-to-gpu -verify-diagnostics | FileCheck %s

// Indices, barriers, buffers, the gpu.func attributes and the launcher.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @indices
// CHECK-SAME: (%[[A:.+]]: memref<64xindex>)
// CHECK-SAME: attributes {tile.launcher}
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: gpu.launch_func @indices_module::@indices blocks in (%[[C4]], %{{.*}}, %{{.*}}) threads in (%[[C32]], %[[C2]], %{{.*}}) args(%[[A]] : memref<64xindex>)
// CHECK: gpu.module @indices_module {
// CHECK: memref.global "private" @__shared_indices_0 : memref<64xf32, #gpu.address_space<workgroup>> {alignment = 128 : i64}
// Per-thread buffers go to the top of the entry block, where LLVM promotes
// them to registers.
// CHECK: gpu.func @indices(%{{.*}}: memref<64xindex>) kernel attributes {known_block_size = array<i32: 32, 2, 1>, known_grid_size = array<i32: 4, 1, 1>}
// CHECK-NEXT:   %[[P:.+]] = memref.alloca() {alignment = 16 : i64} : memref<2xf32>
// CHECK-NEXT:   memref.memory_space_cast %[[P]] : memref<2xf32> to memref<2xf32, #gpu.address_space<private>>
// CHECK-NEXT:   memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK:   gpu.thread_id x
// CHECK:   gpu.thread_id y
// CHECK:   gpu.block_id x
// CHECK:   gpu.grid_dim x
// CHECK:   %[[S:.+]] = memref.get_global @__shared_indices_0
// CHECK:   gpu.barrier
// CHECK:   arith.constant 32 : index
// CHECK:   gpu.return
tile.kernel @indices(%A: memref<64xindex>) grid [4] threads [32, 2] {
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %bx = tile.block_id x
  %nbx = tile.grid_dim x
  %s = tile.alloc_shared {alignment = 128} : memref<64xf32, #gpu.address_space<workgroup>>
  %l = tile.alloc_local : memref<4xf32>
  %p = tile.alloc_local : memref<2xf32, #gpu.address_space<private>>
  tile.barrier
  %ntx = tile.block_dim x
  %sum = arith.addi %ntx, %tx : index
  memref.store %sum, %A[%tx] : memref<64xindex>
}

// -----

// More than 48 KB of shared memory: views into dynamic shared memory at
// aligned offsets (vector elements count whole vectors), the size on the
// gpu.func and in the launch.
// CHECK-LABEL: func.func @big_shared
// CHECK: %[[BYTES:.+]] = arith.constant 65584 : i32
// CHECK: gpu.launch_func @big_shared_module::@big_shared {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK: gpu.module @big_shared_module attributes {{{.*}}tile.dynamic_shared_memory_alignment = 16 : i64
// CHECK: gpu.func @big_shared() kernel attributes {{{.*}}tile.dynamic_shared_memory = 65584 : i64}
// CHECK:   %[[BASE:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:   %[[O0:.+]] = arith.constant 0 : index
// CHECK:   memref.view %[[BASE]][%[[O0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
// CHECK:   %[[O1:.+]] = arith.constant 65536 : index
// CHECK:   memref.view %[[BASE]][%[[O1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK:   %[[O2:.+]] = arith.constant 65584 : index
tile.kernel @big_shared() grid [1] threads [128] {
  %a = tile.alloc_shared : memref<16384xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<3xvector<4xf32>, #gpu.address_space<workgroup>>
  %c = tile.alloc_shared {alignment = 16} : memref<0xf32, #gpu.address_space<workgroup>>
}

// -----

// A buffer in dynamic shared memory asking for 1024 bytes: the module's
// dynamic shared memory is declared with that alignment (the PTX's
// `.extern .shared .align 1024`, test/Pipelines).
// CHECK-LABEL: func.func @big_shared_aligned
// CHECK: gpu.module @big_shared_aligned_module attributes {{{.*}}tile.dynamic_shared_memory_alignment = 1024 : i64
tile.kernel @big_shared_aligned() grid [1] threads [128] {
  %a = tile.alloc_shared : memref<16384xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared {alignment = 1024} : memref<32xf32, #gpu.address_space<workgroup>>
}

// -----

// A dynamic grid: the grid_size region is evaluated in the launcher.
// CHECK-LABEL: func.func @dynamic_grid
// CHECK-SAME: (%[[X:.+]]: memref<?xf32>)
// CHECK: %[[N:.+]] = memref.dim %[[X]]
// CHECK: %[[G:.+]] = arith.ceildivui %[[N]]
// CHECK: gpu.launch_func @dynamic_grid_module::@dynamic_grid blocks in (%[[G]], %{{.*}}, %{{.*}})
// CHECK: gpu.func @dynamic_grid
// CHECK-NOT: known_grid_size
// CHECK-SAME: {
tile.kernel @dynamic_grid(%x: memref<?xf32>) grid [?] threads [256] {
  %bx = tile.block_id x
} grid_size {
^bb0(%x: memref<?xf32>):
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c256 : index
  tile.yield %blocks : index
}

// -----

// Regression: a per-thread buffer allocated in a loop body is allocated in
// the entry block (an alloca after a loop stays in local memory).
// CHECK-LABEL: gpu.func @local_in_loop
// CHECK-NEXT: memref.alloca() {alignment = 16 : i64} : memref<1xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloca
// CHECK: gpu.return
tile.kernel @local_in_loop(%A: memref<8xf32>, %n: index) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %acc = tile.alloc_local : memref<1xf32>
    memref.store %f, %acc[%c0] : memref<1xf32>
    %v = memref.load %acc[%c0] : memref<1xf32>
    memref.store %v, %A[%c0] : memref<8xf32>
  }
}

// -----

// tile.print: block and thread first, one printf conversion per value.
// CHECK-LABEL: gpu.func @print
// CHECK: gpu.printf "[block (%d,%d,%d) thread (%d,%d,%d)] acc = %g at k = %lld, 100%% %d\0A"
tile.kernel @print(%acc: f16, %k: index, %flag: i1) grid [1] threads [32] {
  tile.print "acc = {} at k = {}, 100% {}" %acc, %k, %flag : f16, index, i1
}

// -----

// Integers between 33 and 63 bits are sign-extended to 64 for %lld.
// CHECK-LABEL: gpu.func @print_i48
// CHECK-SAME: (%[[X:.+]]: i48)
// CHECK: %[[WIDE:.+]] = arith.extsi %[[X]] : i48 to i64
// CHECK: gpu.printf "{{.*}} x = %lld\0A", {{.*}}, %[[WIDE]] : {{.*}}, i64
tile.kernel @print_i48(%x: i48) grid [1] threads [32] {
  tile.print "x = {}" %x : i48
}

// -----

tile.kernel @unlowered(%A: memref<64xf32>) grid [1] threads [32] {
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op must be lowered before tile-to-gpu: run the tile-to-ptx pipeline, or the tile passes before this one}}
  tile.copy %A to %s : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
}

// -----

// Every kernel gets a gpu.module of its own (compiled independently, in
// parallel); a name already taken is made unique.
// CHECK-LABEL: func.func @a_module
// CHECK-LABEL: func.func @a(
// CHECK: gpu.launch_func @[[A:a_module_[0-9]+]]::@a
// CHECK-LABEL: func.func @b(
// CHECK: gpu.launch_func @b_module::@b
// CHECK: gpu.module @[[A]] {
// CHECK-NEXT: gpu.func @a(
// CHECK: gpu.module @b_module {
// CHECK-NEXT: gpu.func @b(
func.func @a_module() {
  return
}
tile.kernel @a() grid [1] threads [32] {
}
tile.kernel @b() grid [1] threads [32] {
}
