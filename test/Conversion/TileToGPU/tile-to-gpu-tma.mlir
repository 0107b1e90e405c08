// RUN: tile-opt %s -split-input-file --tile-to-gpu -verify-diagnostics | FileCheck %s

// TMA copies read tensor maps that the kernel takes after its own
// arguments, one per (argument, box, swizzle): A's 128x64 box and B's two
// boxes (the same box for both copies of B). Each map is fenced for the
// tensor-map proxy at entry. A swizzled 64x128 f16 tile is two 128-byte
// panels: two TMA loads, the second 8192 bytes further in shared memory and
// 64 columns further in B. The launcher takes the maps too.
// CHECK-LABEL: func.func @tma
// CHECK-SAME: (%{{.+}}: memref<?x?xf16>, %{{.+}}: memref<?x?xf16>, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr) attributes {tile.launcher, tile.tensor_maps = [{argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 0 : i64}, {argument = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]}
// CHECK: gpu.launch_func @tma_module::@tma
// CHECK: gpu.func @tma(%{{.+}}: memref<?x?xf16>, %[[B:.+]]: memref<?x?xf16>, %[[MAPA:.+]]: !llvm.ptr, %[[MAPB:.+]]: !llvm.ptr) kernel
// CHECK-SAME: tile.tensor_maps = [{argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 0 : i64}, {argument = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]
// CHECK: nvvm.fence.proxy.acquire <sys> %[[MAPA]], %{{.+}}
// CHECK: nvvm.fence.proxy.acquire <sys> %[[MAPB]], %{{.+}}
// CHECK: %[[BAR:.+]] = nvgpu.mbarrier.get
// CHECK: %[[BARP:.+]] = llvm.inttoptr %[[BAR]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPA]], %[[BARP]], box[%{{.+}}, %{{.+}}] {isCTAOnly = true
// CHECK: nvgpu.mbarrier.get
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[COL:.+]] = arith.index_cast %c0 : index to i32
// CHECK: %[[ROW:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK: %[[COL0:.+]] = arith.addi %[[COL]], %c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%[[COL0]], %[[ROW]]]
// CHECK: arith.addi %[[BASE]], %c8192
// CHECK: %[[COL1:.+]] = arith.addi %[[COL]], %c64_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]], %{{.+}}, box[%[[COL1]], %[[ROW]]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAPB]]
// CHECK-NOT: tile.tma_load
tile.kernel @tma(%A: memref<?x?xf16>, %B: memref<?x?xf16>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
  %As = tile.alloc_shared {alignment = 1024} : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
  %Bs2 = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
  tile.tma_load %A[%c64, %c0] to %As, %bars[%c0] : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
  tile.tma_load %B[%c64, %c0] to %Bs, %bars[%c0] {swizzle = 128} : memref<?x?xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
  tile.tma_load %B[%c0, %c64] to %Bs2, %bars[%c0] {swizzle = 128} : memref<?x?xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
}

// -----

// A copy that rounds f32 to tf32 (`round_tf32`) reads a map of its own,
// marked `tf32` (the launcher encodes it with the TFLOAT32 data type),
// beside the one that copies the same box's bits.
// CHECK-LABEL: func.func @tma_tf32
// CHECK-SAME: tile.tensor_maps = [{argument = 0 : i64, box = array<i64: 64, 32>, swizzle = 128 : i64, tf32}, {argument = 0 : i64, box = array<i64: 64, 32>, swizzle = 128 : i64}]
// CHECK: gpu.func @tma_tf32(%{{.+}}: memref<?x?xf32>, %[[ROUNDED:.+]]: !llvm.ptr, %[[BITS:.+]]: !llvm.ptr) kernel
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[ROUNDED]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[BITS]]
tile.kernel @tma_tf32(%A: memref<?x?xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] {round_tf32, swizzle = 128} : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  tile.tma_load %A[%c0, %c0] to %Bs, %bars[%c0] {swizzle = 128} : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

// A 2-D tile of one head of a [heads, seq, d] argument: the box is one
// element along the head (box [1, 64, 64]), and each 128-byte panel one
// 3-D TMA load whose coordinates are innermost first (column, row, head).
// CHECK-LABEL: func.func @tma_head
// CHECK-SAME: tile.tensor_maps = [{argument = 0 : i64, box = array<i64: 1, 64, 64>, swizzle = 128 : i64}]
// CHECK: gpu.func @tma_head(%{{.+}}: memref<?x?x128xf16>, %[[H:.+]]: index, %[[MAP:.+]]: !llvm.ptr) kernel
// CHECK: %[[HEAD:.+]] = arith.index_cast %[[H]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}, %[[HEAD]]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}, %[[HEAD]]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
tile.kernel @tma_head(%X: memref<?x?x128xf16>, %h: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %Xs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
  tile.tma_load %X[%h, %c0, %c0] to %Xs, %bars[%c0] {swizzle = 128} : memref<?x?x128xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

// A TMA store reads a tensor map of its target as a load does, one map for
// both (the same box and swizzle): each of the two 128-byte panels of the
// 64x128 tile is one cp.async.bulk.tensor from shared to global, the
// second 8192 bytes further in shared memory and 64 columns further in C,
// and the two make one bulk async-group.
// CHECK-LABEL: func.func @tma_store
// CHECK-SAME: tile.tensor_maps = [{argument = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]
// CHECK: gpu.func @tma_store(%{{.+}}: memref<?x?xf16>, %[[MAP:.+]]: !llvm.ptr) kernel
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[COL:.+]] = arith.index_cast %c64 : index to i32
// CHECK: %[[ROW:.+]] = arith.index_cast %c0 : index to i32
// CHECK: %[[COL0:.+]] = arith.addi %[[COL]], %c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.+}}, box[%[[COL0]], %[[ROW]]]
// CHECK: arith.addi %[[BASE]], %c8192
// CHECK: %[[COL1:.+]] = arith.addi %[[COL]], %c64_i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.+}}, box[%[[COL1]], %[[ROW]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]]
// CHECK-NOT: tile.tma_store
tile.kernel @tma_store(%C: memref<?x?xf16>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %Cs = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
  tile.tma_store %Cs to %C[%c0, %c64] {swizzle = 128} : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<?x?xf16>
  tile.tma_load %C[%c0, %c0] to %Cs, %bars[%c0] {swizzle = 128} : memref<?x?xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}
