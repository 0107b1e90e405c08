// RUN: tile-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses again and prints the same.
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s
// The generic form round-trips too.
// RUN: tile-opt %s -split-input-file -mlir-print-op-generic | tile-opt -split-input-file | FileCheck %s

// A kernel with a static grid, a 3-D block, and every index op.
// The source names of the arguments are kept.
// CHECK-LABEL: tile.kernel @indices
// CHECK-SAME: (%a: memref<1024xf32>, %s: f32, %n: index)
// CHECK-SAME: grid [4, 2, 1] threads [32, 4, 2] {
// CHECK: %[[BX:.+]] = tile.block_id x
// CHECK: tile.block_id y
// CHECK: tile.block_id z
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK: tile.thread_id y
// CHECK: tile.thread_id z
// CHECK: tile.block_dim x
// CHECK: tile.grid_dim y
// CHECK: arith.addi %[[BX]], %[[TX]] : index
// CHECK-NOT: tile.return
// CHECK: }
tile.kernel @indices(%a: memref<1024xf32>, %s: f32, %n: index)
    grid [4, 2, 1] threads [32, 4, 2] {
  %bx = tile.block_id x
  %by = tile.block_id y
  %bz = tile.block_id z
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %tz = tile.thread_id z
  %ntx = tile.block_dim x
  %nby = tile.grid_dim y
  %sum = arith.addi %bx, %tx : index
  tile.return
}

// -----

// A dynamic grid extent computed from the arguments.
// CHECK-LABEL: tile.kernel @dynamic_grid
// CHECK-SAME: grid [?, 1] threads [256] {
// CHECK: } grid_size {
// CHECK: ^bb0(%{{.*}}: memref<?xf32>, %{{.*}}: f32):
// CHECK: memref.dim
// CHECK: arith.ceildivui
// CHECK: tile.yield %{{.*}} : index
tile.kernel @dynamic_grid(%x: memref<?xf32>, %alpha: f32) grid [?, 1] threads [256] {
  %bx = tile.block_id x
} grid_size {
^bb0(%x: memref<?xf32>, %alpha: f32):
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c256 : index
  tile.yield %blocks : index
}

// -----

// Shared and local buffers.
// CHECK-LABEL: tile.kernel @buffers
// CHECK: tile.alloc_shared {alignment = 128 : i64} : memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_shared : memref<128xf16, #gpu.address_space<workgroup>>
// CHECK: tile.alloc_local : memref<8xf16>
// CHECK: tile.alloc_local : memref<4xf32, #gpu.address_space<private>>
tile.kernel @buffers() grid [1] threads [128] {
  %s0 = tile.alloc_shared {alignment = 128} : memref<64x32xf32, #gpu.address_space<workgroup>>
  %s1 = tile.alloc_shared : memref<128xf16, #gpu.address_space<workgroup>>
  %l0 = tile.alloc_local : memref<8xf16>
  %l1 = tile.alloc_local : memref<4xf32, #gpu.address_space<private>>
}

// -----

// Every loop kind.
// CHECK-LABEL: tile.kernel @loops
// CHECK: tile.serial %[[K:.+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   memref.load %{{.*}}[%[[K]]]
// CHECK: } {note = "serial"}
// CHECK: tile.unroll %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: tile.vectorized %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages 3 {
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages 4 rolled {
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: }
// CHECK-NOT: rolled
// CHECK: tile.parallel (%[[I:.+]], %[[J:.+]]) in [64, 32] {
// CHECK:   memref.load %{{.*}}[%[[I]], %[[J]]]
tile.kernel @loops(%A: memref<1024xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %l = tile.alloc_local : memref<8xf32>
  tile.serial %k = %c0 to %n step %c1 {
    %v = memref.load %A[%k] : memref<1024xf32>
  } {note = "serial"}
  tile.unroll %i = %c0 to %c8 step %c1 {
    %v = memref.load %l[%i] : memref<8xf32>
  }
  tile.vectorized %i = %c0 to %c8 step %c1 {
    %v = memref.load %A[%i] : memref<1024xf32>
    memref.store %v, %l[%i] : memref<8xf32>
  }
  tile.pipelined %k = %c0 to %n step %c1 stages 3 {
    tile.barrier
  }
  tile.pipelined %k = %c0 to %n step %c1 stages 4 rolled {
    tile.barrier
  }
  tile.parallel (%i, %j) in [64, 32] {
    %v = memref.load %s[%i, %j] : memref<64x32xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// Loop-carried values: a serial sum of two values and an unrolled dot
// product nested in it, round-tripped with their yields.
// CHECK-LABEL: tile.kernel @iter_args
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OUT:.+]]:2 = tile.serial %[[K:.+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.+]] = %[[ZERO]], %[[M:.+]] = %[[ZERO]]) -> (f32, f32) {
// CHECK:   %[[DOT:.+]] = tile.unroll %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.+]] = %[[S]]) -> (f32) {
// CHECK:     %[[FMA:.+]] = math.fma %{{.*}}, %{{.*}}, %[[ACC]] : f32
// CHECK:     tile.yield %[[FMA]] : f32
// CHECK:   }
// CHECK:   %[[MAX:.+]] = arith.maximumf %[[M]], %[[DOT]] : f32
// CHECK:   tile.yield %[[DOT]], %[[MAX]] : f32, f32
// CHECK: } {note = "carried"}
// CHECK: arith.addf %[[OUT]]#0, %[[OUT]]#1 : f32
tile.kernel @iter_args(%A: memref<1024xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %l = tile.alloc_local : memref<8xf32>
  %out:2 = tile.serial %k = %c0 to %n step %c1
      iter_args(%s = %zero, %m = %zero) -> (f32, f32) {
    %dot = tile.unroll %i = %c0 to %c8 step %c1 iter_args(%acc = %s) -> (f32) {
      %a = memref.load %A[%k] : memref<1024xf32>
      %b = memref.load %l[%i] : memref<8xf32>
      %f = math.fma %a, %b, %acc : f32
      tile.yield %f : f32
    }
    %max = arith.maximumf %m, %dot : f32
    tile.yield %dot, %max : f32, f32
  } {note = "carried"}
  %sum = arith.addf %out#0, %out#1 : f32
  memref.store %sum, %A[%c0] : memref<1024xf32>
}

// -----

// Copies, fills, atomics, reductions, barriers and prints.
// CHECK-LABEL: tile.kernel @data
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xf32, #gpu.address_space<workgroup>> to memref<1024x2048xf32>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] shape [16, 8] : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}}[%{{.*}}] to %{{.*}} : memref<2048xf16> to memref<8xf16>
// CHECK: tile.fill %{{.*}}, %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
// CHECK: tile.clear %{{.*}} : memref<8xf16>
// CHECK: tile.atomic_add %{{.*}}[%{{.*}}], %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>, f32
// CHECK: %{{.*}} = tile.atomic_add %{{.*}}[%{{.*}}], %{{.*}} : memref<2048xf16>, vector<2xf16> -> vector<2xf16>
// CHECK: tile.atomic_add %{{.*}}[%{{.*}}], %{{.*}} : memref<2048xbf16>, bf16
// CHECK: tile.atomic_add %{{.*}}[%{{.*}}], %{{.*}} : memref<2048xi32>, i32
// CHECK: tile.thread_allreduce add %{{.*}} across(y) : f32
// CHECK: tile.thread_allreduce max %{{.*}} across(x, y) : f16
// CHECK: tile.thread_allreduce xor %{{.*}} across(x) : i32
// CHECK: tile.thread_allreduce add %{{.*}} across(y) : memref<8xf16>
// CHECK: tile.barrier
// CHECK: tile.print "acc = {} at k = {}" %{{.*}}, %{{.*}} : f32, index
// CHECK: tile.print "here"
tile.kernel @data(%A: memref<1024x2048xf32>, %H: memref<2048xf16>,
                  %G: memref<2048xbf16>, %I: memref<2048xi32>)
    grid [16] threads [32, 4] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : f16
  %bf = arith.constant 1.0 : bf16
  %i0 = arith.constant 7 : i32
  %h2 = arith.constant dense<1.0> : vector<2xf16>
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Cs = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %a = tile.alloc_local : memref<8xf16>
  tile.copy %A[%c0, %c1] to %As : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.copy %As to %A[%c0, %c1] : memref<64x32xf32, #gpu.address_space<workgroup>> to memref<1024x2048xf32>
  tile.copy %A[%c0, %c1] to %As[%c1, %c0] shape [16, 8] : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.copy %H[%c0] to %a : memref<2048xf16> to memref<8xf16>
  tile.fill %As, %f0 : memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.clear %a : memref<8xf16>
  tile.atomic_add %Cs[%c0], %f0 : memref<64xf32, #gpu.address_space<workgroup>>, f32
  %old = tile.atomic_add %H[%c0], %h2 : memref<2048xf16>, vector<2xf16> -> vector<2xf16>
  tile.atomic_add %G[%c0], %bf : memref<2048xbf16>, bf16
  tile.atomic_add %I[%c0], %i0 : memref<2048xi32>, i32
  %sum = tile.thread_allreduce add %f0 across(y) : f32
  %max = tile.thread_allreduce max %h0 across(x, y) : f16
  %bits = tile.thread_allreduce xor %i0 across(x) : i32
  tile.thread_allreduce add %a across(y) : memref<8xf16>
  tile.barrier
  tile.print "acc = {} at k = {}" %sum, %c1 : f32, index
  tile.print "here"
}

// -----

// A warp-specialized producer/consumer pipeline.
// CHECK-LABEL: tile.kernel @warp_specialized
// CHECK: tile.warp_specialize %{{.*}} to %{{.*}} step %{{.*}} stages 2 buffers(%{{.*}} : memref<2x128xf16, #gpu.address_space<workgroup>>)
// CHECK: producer(%[[PK:.+]], %[[PS:.+]]) threads 128 regs 24 {
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[PS]], %{{.*}}]
// CHECK: } consumer(%{{.*}}, %[[CS:.+]]) threads 128 regs 240 {
// CHECK:   memref.load %{{.*}}[%[[CS]], %{{.*}}]
// CHECK: tile.warp_specialize
// CHECK: producer(%{{.*}}, %{{.*}}) threads 128 {
// CHECK: } consumer(%{{.*}}, %{{.*}}) threads 128 {
tile.kernel @warp_specialized(%A: memref<1024xf16>) grid [8] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<2x128xf16, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      buffers(%buf : memref<2x128xf16, #gpu.address_space<workgroup>>)
      producer(%k, %stage) threads 128 regs 24 {
    %v = memref.load %A[%k] : memref<1024xf16>
    memref.store %v, %buf[%stage, %c0] : memref<2x128xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %stage) threads 128 regs 240 {
    %v = memref.load %buf[%stage, %c0] : memref<2x128xf16, #gpu.address_space<workgroup>>
  }
  tile.warp_specialize %c0 to %c8 step %c1 stages 1
      producer(%k, %stage) threads 128 {
  } consumer(%k, %stage) threads 128 {
  }
}

// -----

// Collective ops under uniform control flow are accepted: the condition and
// the bounds do not depend on the thread.
// CHECK-LABEL: tile.kernel @uniform_control_flow
// CHECK: scf.if
// CHECK:   tile.barrier
// CHECK: scf.for
// CHECK:   tile.copy
// CHECK: scf.if
// CHECK:   tile.print
tile.kernel @uniform_control_flow(%A: memref<1024xf32>, %n: index) grid [4] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.if %first {
    tile.barrier
  }
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %A[%k] to %s : memref<1024xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  }
  // Thread-level code may branch on the thread index freely.
  %lead = arith.cmpi eq, %tx, %c0 : index
  scf.if %lead {
    tile.print "lead"
  }
}

// -----

// A reference with dynamic sizes serves a kernel with static ones.
// CHECK-LABEL: tile.kernel @static_kernel
// CHECK-SAME: attributes {reference = @dynamic_reference}
tile.kernel @static_kernel(%a: memref<16x32xf32>, %s: f32) grid [1] threads [32]
    attributes {reference = @dynamic_reference} {
}
func.func @dynamic_reference(%a: memref<?x?xf32>, %s: f32) {
  return
}

// -----

// A reduction over the whole block is the same in every thread: collective
// ops may depend on it.
// CHECK-LABEL: tile.kernel @uniform_after_full_reduction
// CHECK: scf.if
// CHECK-NEXT: tile.barrier
tile.kernel @uniform_after_full_reduction(%A: memref<128xf32>) grid [1] threads [128] {
  %tx = tile.thread_id x
  %z = arith.constant 0.0 : f32
  %v = memref.load %A[%tx] : memref<128xf32>
  %s = tile.thread_allreduce add %v across(x) : f32
  %p = arith.cmpf ogt, %s, %z : f32
  scf.if %p {
    tile.barrier
  }
}

// -----

// Fragments, swizzled shared tiles and tile.gemm.
// CHECK-LABEL: tile.kernel @fragments
// CHECK: tile.alloc_shared {swizzle = 128 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ACC:.+]] = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [256], threads = 128, registers = 2, map = (d0, d1) -> (d1 * 128 + d0)>} : memref<256xf32, #tile.fragment>
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[ACC]] {clear, transpose_b, warps = array<i64: 2, 2>} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[ACC]] {lowering = #tile.gemm_lowering<scalar>, transpose_a}
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in [64, 64] {
// CHECK: tile.for_each_owned %[[ACC]] (%[[R:.+]], %[[I:.+]], %[[J:.+]]) : memref<64x64xf32, #tile.fragment> {
// CHECK:   memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK:   arith.index_cast %[[R]]
// CHECK: tile.copy %[[ACC]] to %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xf32, #tile.fragment> to memref<?x?xf16>
tile.kernel @fragments(%C: memref<?x?xf16>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared {swizzle = 128} : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %At = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %v = tile.alloc_fragment {layout = #tile.layout<shape = [256], threads = 128, registers = 2, map = (d0, d1) -> (d1 * 128 + d0)>} : memref<256xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, transpose_b, warps = array<i64: 2, 2>} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.gemm %At, %At, %acc {transpose_a, lowering = #tile.gemm_lowering<scalar>} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.parallel (%i, %j) in [64, 64] {
    %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
  }
  tile.for_each_owned %acc (%r, %i, %j) : memref<64x64xf32, #tile.fragment> {
    %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %y = arith.addf %x, %rf : f32
    memref.store %y, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<64x64xf32, #tile.fragment> to memref<?x?xf16>
}
