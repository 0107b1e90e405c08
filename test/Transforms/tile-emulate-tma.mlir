// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-emulate-tma))' | FileCheck %s

// On the CPU target a TMA copy is its issuing thread's: element by element
// over the target's shape, zero outside the source, into the target's
// logical positions; then the tile's bytes (16 x 64 x 2) complete on the
// copy's mbarrier.
// CHECK-LABEL: tile.kernel @tma_copy
// CHECK-NOT: tile.tma_load
// CHECK: scf.for %[[I:.+]] = %c0{{.*}} to %c16{{.*}} step
// CHECK: scf.for %[[J:.+]] = %c0{{.*}} to %c64{{.*}} step
// CHECK: %[[R:.+]] = arith.addi %{{.*}}, %[[I]]
// CHECK: %[[DR:.+]] = memref.dim %[[A:.+]], %c0
// CHECK: %[[INR:.+]] = arith.cmpi ult, %[[R]], %[[DR]]
// CHECK: %[[C:.+]] = arith.addi %{{.*}}, %[[J]]
// CHECK: %[[DC:.+]] = memref.dim %[[A]], %c1
// CHECK: %[[INC:.+]] = arith.cmpi ult, %[[C]], %[[DC]]
// CHECK: %[[IN:.+]] = arith.andi %[[INR]], %[[INC]]
// CHECK: %[[V:.+]] = scf.if %[[IN]] -> (f16) {
// CHECK:   memref.load %[[A]][%[[R]], %[[C]]]
// CHECK: } else {
// CHECK:   arith.constant 0.000000e+00 : f16
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[ADDR:.+]] = nvgpu.mbarrier.get %{{.*}}[%c1]
// CHECK: %[[PTR:.+]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<3>
// CHECK: %[[BYTES:.+]] = arith.constant 2048 : i32
// CHECK: nvvm.mbarrier.complete_tx %[[PTR]], %[[BYTES]]
tile.kernel @tma_copy(%A: memref<?x?xf16>, %m0: index, %k0: index) grid [1] threads [32] {
  %c1 = arith.constant 1 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
  %As = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  tile.tma_load %A[%m0, %k0] to %As, %bars[%c1] : memref<?x?xf16> to memref<16x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
}

// A tile of one head of a [heads, seq, d] argument: the head index is read
// as it is (and checked against its extent), the tile's dimensions loop.
// CHECK-LABEL: tile.kernel @tma_head
// CHECK: scf.for %[[I:.+]] = %c0{{.*}} to %c16{{.*}} step
// CHECK: scf.for %[[J:.+]] = %c0{{.*}} to %c64{{.*}} step
// CHECK: %[[DH:.+]] = memref.dim %[[A:.+]], %c0
// CHECK: %[[INH:.+]] = arith.cmpi ult, %[[H:.+]], %[[DH]]
// CHECK: %[[R:.+]] = arith.addi %{{.*}}, %[[I]]
// CHECK: %[[C:.+]] = arith.addi %{{.*}}, %[[J]]
// CHECK: memref.load %[[A]][%[[H]], %[[R]], %[[C]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK: nvvm.mbarrier.complete_tx %{{.*}}, %c2048_i32
tile.kernel @tma_head(%A: memref<?x?x64xf16>, %h: index, %m0: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  tile.tma_load %A[%h, %m0, %c0] to %As, %bars[%c0] : memref<?x?x64xf16> to memref<16x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// A TMA store is its issuing thread's copy of the elements of the shared
// tile that fall inside the target (TMA clips the box at its edges).
// CHECK-LABEL: tile.kernel @tma_store
// CHECK-NOT: tile.tma_store
// CHECK: scf.for %[[I:.+]] = %c0{{.*}} to %c16{{.*}} step
// CHECK: scf.for %[[J:.+]] = %c0{{.*}} to %c64{{.*}} step
// CHECK: %[[R:.+]] = arith.addi %{{.*}}, %[[I]]
// CHECK: %[[DR:.+]] = memref.dim %[[C:.+]], %c0
// CHECK: %[[INR:.+]] = arith.cmpi ult, %[[R]], %[[DR]]
// CHECK: %[[COL:.+]] = arith.addi %{{.*}}, %[[J]]
// CHECK: %[[DC:.+]] = memref.dim %[[C]], %c1
// CHECK: %[[INC:.+]] = arith.cmpi ult, %[[COL]], %[[DC]]
// CHECK: %[[IN:.+]] = arith.andi %[[INR]], %[[INC]]
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[V:.+]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:   memref.store %[[V]], %[[C]][%[[R]], %[[COL]]]
// CHECK-NOT: tile.tma_store
tile.kernel @tma_store(%C: memref<?x?xf16>, %m0: index, %n0: index) grid [1] threads [32] {
  %Cs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  tile.tma_store %Cs to %C[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<?x?xf16>
}

// A copy that rounds to tf32 (`round_tf32`) stores each element rounded to
// nearest, ties to even, as TMA's TFLOAT32 copies do.
// CHECK-LABEL: tile.kernel @tma_tf32
// CHECK: %[[V:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK: %[[BITS:.+]] = arith.bitcast %[[V]] : f32 to i32
// CHECK: arith.shrui %[[BITS]]
// CHECK: arith.addi %[[BITS]]
// CHECK: %[[ROUNDED:.+]] = arith.andi
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[V]], %[[V]]
// CHECK: %[[R:.+]] = arith.bitcast %[[ROUNDED]] : i32 to f32
// CHECK: %[[OUT:.+]] = arith.select %[[NAN]], %[[V]], %[[R]]
// CHECK: memref.store %[[OUT]]
tile.kernel @tma_tf32(%A: memref<?x?xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<16x32xf32, #gpu.address_space<workgroup>>
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] {round_tf32} : memref<?x?xf32> to memref<16x32xf32, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}
