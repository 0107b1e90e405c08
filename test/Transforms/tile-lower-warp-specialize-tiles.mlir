// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-warp-specialize{tma=true}))' | FileCheck %s

// A pipeline of `tiles` on sm_90a: each tile becomes one allocation of 4
// stages (1024-byte aligned, swizzled views at s * stage bytes). The
// producer's first thread alone runs its loop: wait for an empty stage,
// arm full[s] (count 1) with the 48 KB of the stage, TMA copies. The roles
// compare a shuffled (warp-uniform) warp index; the producer's code comes
// first. The clear of the accumulator moves into the consumer's role; its
// gemm stays in flight, reads operands only TMA wrote (no fence), and the
// previous stage is released after it. Each role sets the register count
// back to the one at entry when it ends, after its loop. The producer takes
// its registers back only once every consumer thread has given its own
// back (barrier 2S = 8, arrived after the consumer's closing
// setmaxnreg.dec): its idle threads end at once, and their .inc could
// otherwise take what the consumers wait for (a deadlock on the H100 when
// threads stayed after the op); it sleeps in the wait rather than retrying
// the .inc. A copy out alone stays after the op.
// CHECK-LABEL: tile.kernel @gemm_ws
// CHECK-SAME: tile.max_registers = 168 : i32
// CHECK-DAG: %[[A:.+]] = tile.alloc_shared {alignment = 1024 : i64} : memref<65536xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[B:.+]] = tile.alloc_shared {alignment = 1024 : i64} : memref<131072xi8, #gpu.address_space<workgroup>>
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 9>
// CHECK: %[[T:.+]] = tile.thread_id x
// CHECK: %[[W32:.+]] = arith.divui %[[T]], %c32
// CHECK: %[[WI32:.+]] = arith.index_castui %[[W32]] : index to i32
// CHECK: %[[SHUF:.+]], %{{.*}} = gpu.shuffle idx %[[WI32]]
// CHECK: %[[WARP:.+]] = arith.index_castui %[[SHUF]] : i32 to index
// CHECK: nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c1
// CHECK: nvgpu.mbarrier.init %[[BARS]][%{{.*}}], %c256
// CHECK: nvgpu.mbarrier.init %[[BARS]][%c8{{.*}}], %c256
// CHECK: nvvm.fence.mbarrier.init
// CHECK: tile.barrier
// CHECK: %[[PROD:.+]] = arith.cmpi uge, %[[WARP]], %c8
// CHECK: scf.if %[[PROD]] {
// CHECK-NEXT: nvvm.setmaxregister  decrease 40
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[T]], %c256
// CHECK: scf.if %[[FIRST]] {
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: %[[AV:.+]] = memref.view %[[A]][%{{.*}}][] {tile.swizzle} : memref<65536xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[BV:.+]] = memref.view %[[B]][%{{.*}}][] {tile.swizzle} : memref<131072xi8, #gpu.address_space<workgroup>> to memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%{{.*}}], %c49152
// CHECK-NEXT: tile.tma_load %{{.*}} to %[[AV]], %[[BARS]][%{{.*}}] {swizzle = 128 : i64}
// CHECK-NEXT: tile.tma_load %{{.*}} to %[[BV]], %[[BARS]][%{{.*}}] {swizzle = 128 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%c8{{.*}}], %false
// CHECK-NEXT: nvvm.setmaxregister  increase 168
// CHECK-NEXT: } {tile.role_first = 256 : i64, tile.role_threads = 128 : i64}
// CHECK: %[[CONS:.+]] = arith.cmpi ult, %[[WARP]], %c8
// CHECK: scf.if %[[CONS]] {
// CHECK-NEXT: nvvm.setmaxregister  increase 232
// CHECK-NEXT: tile.clear
// CHECK: scf.for %[[IT:.+]] = 
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: tile.gemm {{.*}}tile.tma_operands, tile.wgmma_in_flight
// CHECK: %[[LATER:.+]] = arith.cmpi ugt, %[[IT]], %c0
// CHECK: scf.if %[[LATER]] {
// CHECK: %[[PREV:.+]] = arith.remui
// CHECK: %[[EMPTY:.+]] = arith.addi %[[PREV]], %c4
// CHECK: nvgpu.mbarrier.arrive %[[BARS]][%[[EMPTY]]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.setmaxregister  decrease 168
// CHECK-NEXT: %[[HANDOFF:.+]] = arith.constant 8 : index
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[BARS]][%[[HANDOFF]]]
// CHECK-NEXT: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.clear
// CHECK: tile.copy

tile.kernel @gemm_ws(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                     %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%c0, %c0] : memref<128x256xf32, #tile.fragment> to memref<?x?xf16>
}

// -----

// A fused epilogue after the op (elementwise on the consumer's accumulator,
// then the copy out) moves into the consumer's role, after its loop and
// before the register count goes back: the accumulator, the bias values and
// the result fit into the consumer's 232 registers (after the op, in 168,
// ptxas spilled 408 bytes). What follows that is not on the consumer's
// fragments stays after the op.
// CHECK-LABEL: tile.kernel @epilogue_in_consumer
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.for
// CHECK: tile.gemm
// CHECK: tile.parallel
// CHECK: arith.maximumf
// CHECK: tile.copy %{{.*}} to %{{.*}} : memref<128x256xf16, #tile.fragment
// CHECK-NEXT: nvvm.setmaxregister  decrease 168
// CHECK-NEXT: arith.constant
// CHECK-NEXT: nvgpu.mbarrier.arrive
// CHECK-NEXT: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
tile.kernel @epilogue_in_consumer(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                                  %bias: memref<256xf32>, %C: memref<?x?xf16> {tile.multiple_of = 8},
                                  %flag: memref<1xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  %out = tile.alloc_fragment : memref<128x256xf16, #tile.fragment>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.parallel (%i, %j) in [128, 256] {
    %v = memref.load %acc[%i, %j] : memref<128x256xf32, #tile.fragment>
    %b = memref.load %bias[%j] : memref<256xf32>
    %sum = arith.addf %v, %b : f32
    %r = arith.maximumf %sum, %zero : f32
    %h = arith.truncf %r : f32 to f16
    memref.store %h, %out[%i, %j] : memref<128x256xf16, #tile.fragment>
  }
  tile.copy %out to %C[%c0, %c0] : memref<128x256xf16, #tile.fragment> to memref<?x?xf16>
  memref.store %zero, %flag[%c0] : memref<1xf32>
}

// -----

// The epilogue may read a shared tile written before the op (a bias staged
// in shared memory): the op's opening barrier orders the writes with the
// consumer's reads, so the epilogue still moves into the consumer's role,
// and, only the consumer reading the tile, the producer loads it by TMA
// ahead of its loop, as a resident tile (512 bytes on mbarrier 8, after
// full, empty), which the consumer waits for before its loop. An epilogue
// that writes shared memory stays after the op (@epilogue_writes_shared).
// CHECK-LABEL: tile.kernel @epilogue_reads_staged_bias
// CHECK: %[[BS:.+]] = tile.alloc_shared {alignment = 128 : i64} : memref<256xf32
// CHECK-NOT: tile.copy %bias
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.+}}[%[[R:c8(_[0-9]+)?]]], %c1024
// CHECK: tile.tma_load %bias[%{{.+}}] to %[[BS]], %{{.+}}[%[[R]]]
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvgpu.mbarrier.try_wait.parity %{{.+}}[%c8{{(_[0-9]+)?}}], %false
// CHECK: scf.for
// CHECK: tile.gemm
// CHECK: tile.parallel
// CHECK: memref.load %[[BS]]
// CHECK: tile.copy %{{.*}} to %{{.*}} : memref<128x256xf16, #tile.fragment
// CHECK-NOT: nvvm.setmaxregister
// CHECK: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: {{^ *}$}}
tile.kernel @epilogue_reads_staged_bias(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                                        %bias: memref<?xf32> {tile.multiple_of = 4}, %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %bs = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  %out = tile.alloc_fragment : memref<128x256xf16, #tile.fragment>
  tile.copy %bias[%c0] to %bs : memref<?xf32> to memref<256xf32, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.parallel (%i, %j) in [128, 256] {
    %v = memref.load %acc[%i, %j] : memref<128x256xf32, #tile.fragment>
    %b = memref.load %bs[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %v, %b : f32
    %r = arith.maximumf %sum, %zero : f32
    %h = arith.truncf %r : f32 to f16
    memref.store %h, %out[%i, %j] : memref<128x256xf16, #tile.fragment>
  }
  tile.copy %out to %C[%c0, %c0] : memref<128x256xf16, #tile.fragment> to memref<?x?xf16>
}

// -----

// CHECK-LABEL: tile.kernel @epilogue_writes_shared
// CHECK: scf.for
// CHECK: tile.gemm
// CHECK: nvvm.setmaxregister  decrease 168
// CHECK: tile.barrier
// CHECK-NEXT: tile.parallel
tile.kernel @epilogue_writes_shared(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                                    %C: memref<128x256xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %Cs = tile.alloc_shared : memref<128x256xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.warp_specialize %c0 to %kt step %c1 stages 2
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy %A[%c0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.parallel (%i, %j) in [128, 256] {
    %v = memref.load %acc[%i, %j] : memref<128x256xf32, #tile.fragment>
    memref.store %v, %Cs[%i, %j] : memref<128x256xf32, #gpu.address_space<workgroup>>
  }
  tile.copy %Cs to %C : memref<128x256xf32, #gpu.address_space<workgroup>> to memref<128x256xf32>
}

// -----

// A consumer gemm reading a tile loaded right before the op, which only
// the consumer reads (attention's Q), as well as the stage's: the
// producer's issuing thread loads it by TMA ahead of its loop, on one more
// mbarrier (5: after full, empty and the register handoff's), and the
// consumer waits for it before its loop, so the load overlaps the first
// stage's instead of preceding it. TMA wrote it: no proxy fence, and none
// per gemm (tile.tma_operands). The K tile comes by TMA through the head's
// subview: a 3-D box, the head index first.
// CHECK-LABEL: tile.kernel @reads_loaded_tile
// CHECK: %[[QS:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<128x64xf16
// CHECK-NOT: tile.copy %Q
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK: nvgpu.mbarrier.init %[[BARS]][%c5], %{{.+}} :
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c5], %c16384
// CHECK: tile.tma_load %Q[%{{.+}}, %{{.+}}] to %[[QS]], %[[BARS]][%c5] {swizzle = 128 : i64}
// CHECK: scf.for
// CHECK: tile.tma_load %K[%[[H:.+]], %{{.+}}, %c0{{.*}}] to
// CHECK: nvvm.setmaxregister  increase 232
// CHECK-NOT: nvvm.fence.proxy
// CHECK: tile.clear
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%c5], %false
// CHECK-NOT: nvvm.fence.proxy
// CHECK: scf.for
// CHECK: tile.gemm %[[QS]], {{.*}}tile.tma_operands
// CHECK-NOT: nvvm.fence.proxy
tile.kernel @reads_loaded_tile(%Q: memref<128x64xf16>, %K: memref<?x?x64xf16> {tile.multiple_of = 8},
                               %S: memref<128x64xf32>, %h: index)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %seq = memref.dim %K, %c1 : memref<?x?x64xf16>
  %Kh = memref.subview %K[%h, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %n = arith.ceildivui %seq, %c64 : index
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q to %Qs : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  // What barrier insertion puts here (Q is written, then read in the op):
  // the copy and the clear move across it all the same.
  tile.barrier {tile.inserted_by = "tile-insert-barriers"}
  tile.warp_specialize %c0 to %n step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %s) threads 128 regs 40 {
    %n0 = arith.muli %j, %c64 : index
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %s) threads 256 regs 232 {
    tile.gemm %Qs, %Ks, %acc {transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
  }
  tile.copy %acc to %S : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
}

// -----

// Two resident tiles and a consumer gemm reading the one chosen in each
// iteration (an arith.select, as two query tiles of one block): both are
// loaded by TMA ahead of the producer's loop on the resident mbarrier (32
// KB), and the choice of TMA-written tiles needs no proxy fence either.
// CHECK-LABEL: tile.kernel @reads_selected_loaded_tile
// CHECK: %[[Q0:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<128x64xf16
// CHECK: %[[Q1:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<128x64xf16
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%c5], %c32768
// CHECK: tile.tma_load %Q0{{.*}} to %[[Q0]], %[[BARS]][%c5]
// CHECK: tile.tma_load %Q1{{.*}} to %[[Q1]], %[[BARS]][%c5]
// CHECK-NOT: nvvm.fence.proxy
// CHECK: %[[SEL:.+]] = arith.select %{{.+}}, %[[Q1]], %[[Q0]]
// CHECK: tile.gemm %[[SEL]], {{.*}}tile.tma_operands
// CHECK-NOT: nvvm.fence.proxy
tile.kernel @reads_selected_loaded_tile(%Q0: memref<128x64xf16>, %Q1: memref<128x64xf16>,
                                        %K: memref<?x64xf16> {tile.multiple_of = 8},
                                        %S: memref<128x64xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %seq = memref.dim %K, %c0 : memref<?x64xf16>
  %n = arith.ceildivui %seq, %c64 : index
  %half = arith.divui %n, %c1 : index
  %Qs0 = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Qs1 = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q0 to %Qs0 : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.copy %Q1 to %Qs1 : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  tile.barrier {tile.inserted_by = "tile-insert-barriers"}
  tile.warp_specialize %c0 to %n step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %s) threads 128 regs 40 {
    %n0 = arith.muli %j, %c64 : index
    tile.copy %K[%n0, %c0] to %Ks : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %s) threads 256 regs 232 {
    %second = arith.cmpi uge, %j, %half : index
    %Qs = arith.select %second, %Qs1, %Qs0 : memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %Qs, %Ks, %acc {transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
  }
  tile.copy %acc to %S : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
}

// -----

// The same tile also read after the op: it stays loaded before the op (the
// threads after it have not waited for a TMA), written through the generic
// proxy, so one proxy fence at the start of the consumer's role.
// CHECK-LABEL: tile.kernel @reads_tile_also_after
// CHECK: tile.copy %Q to
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvvm.fence.proxy
// CHECK: scf.for
// CHECK: tile.gemm {{.*}}tile.tma_operands
// CHECK-NOT: nvvm.fence.proxy
tile.kernel @reads_tile_also_after(%Q: memref<128x64xf16>, %K: memref<?x64xf16> {tile.multiple_of = 8},
                                   %S: memref<128x64xf32>, %Q2: memref<128x64xf16>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %seq = memref.dim %K, %c0 : memref<?x64xf16>
  %n = arith.ceildivui %seq, %c64 : index
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q to %Qs : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %n step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %s) threads 128 regs 40 {
    %n0 = arith.muli %j, %c64 : index
    tile.copy %K[%n0, %c0] to %Ks : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %s) threads 256 regs 232 {
    tile.gemm %Qs, %Ks, %acc {transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
  }
  tile.copy %acc to %S : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
  tile.copy %Qs to %Q2 : memref<128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16>
}

// -----

// A producer that does more than compute indices and copy: with TMA one
// thread would run it, so the copies stay cp.async, with a remark.
tile.kernel @ws_not_tma(%A: memref<?x?xf16> {tile.multiple_of = 8}, %Y: memref<8xf32>)
    grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      tiles(%As : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    tile.copy %A[%c0, %c0] to %As : memref<?x?xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    // expected-remark @below {{copied with cp.async, not TMA: the producer does more than compute indices and copy the tiles (with TMA one thread runs it)}}
    memref.store %f, %Y[%c0] : memref<8xf32>
  } consumer(%k, %s) threads 128 {
  }
}

// -----

// A tf32 wgmma gemm of the consumer: TMA rounds both of its tiles to tf32 on
// the copy (`round_tf32`: a TFLOAT32 tensor map), so no thread rounds them,
// no other mbarrier than full[s] and empty[s] is needed, and the gemm rounds
// nothing itself (tile.tf32_rounded) and stays in flight.
// CHECK-LABEL: tile.kernel @ws_tf32
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-NOT: arith.cmpi uge, %{{.*}}, %c8
// CHECK: %[[ISSUER:.+]] = arith.cmpi eq, %{{.*}}, %c128
// CHECK: scf.if %[[ISSUER]] {
// CHECK: tile.tma_load %{{.*}} {round_tf32, swizzle = 128 : i64}
// CHECK-NEXT: tile.tma_load %{{.*}} {round_tf32, swizzle = 128 : i64}
// CHECK: } {tile.role_first = 128 : i64, tile.role_threads = 256 : i64}
// CHECK: scf.for %[[CIT:.+]] = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[CS:.+]] = arith.remui %[[CIT]], %c2
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[CS]]]
// CHECK-NOT: nvgpu.mbarrier.try_wait.parity
// CHECK: tile.gemm {{.*}}tile.tf32_rounded, tile.tma_operands, tile.wgmma_in_flight
tile.kernel @ws_tf32(%A: memref<?x?xf32> {tile.multiple_of = 8}, %B: memref<?x?xf32> {tile.multiple_of = 8})
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c4 step %c1 stages 2
      tiles(%As, %Bs : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 256 {
    tile.copy %A[%c0, %k] to %As : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %k] to %Bs : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 128 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>, transpose_b} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
}

// -----

// With B stored K x N the product is computed transposed: A's tile is the
// instruction's descriptor operand, B^T its register operand, which the
// consumer loads from B's tile (rounded by TMA too, so it converts nothing)
// and its MMAs in flight read: two iterations per loop iteration, the
// second under it + 1 < N, after the first's release of the previous stage
// (not inside it).
// CHECK-LABEL: tile.kernel @ws_tf32_transposed
// CHECK: num_barriers = 4>
// CHECK: tile.tma_load %{{.*}} {round_tf32, swizzle = 128 : i64}
// CHECK-NEXT: tile.tma_load %{{.*}} {round_tf32, swizzle = 128 : i64}
// CHECK: scf.for %[[IT:.+]] = %{{.*}} to %[[N:.+]] step %c2
// CHECK: tile.gemm {{.*}}tile.tf32_rounded, tile.tma_operands, tile.wgmma_in_flight
// CHECK: %[[LATER:.+]] = arith.cmpi ugt, %[[IT]], %c0
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK: nvgpu.mbarrier.arrive
// CHECK-NEXT: }
// CHECK-NOT: }
// CHECK: %[[SECOND:.+]] = arith.addi %[[IT]], %c1
// CHECK-NEXT: %[[INSIDE:.+]] = arith.cmpi ult, %[[SECOND]], %[[N]]
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK: tile.gemm {{.*}}tile.tf32_rounded, tile.tma_operands, tile.wgmma_in_flight
tile.kernel @ws_tf32_transposed(%A: memref<?x?xf32> {tile.multiple_of = 8}, %B: memref<?x?xf32> {tile.multiple_of = 8})
    grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<32x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c4 step %c1 stages 2
      tiles(%As, %Bs : memref<32x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    tile.copy %A[%c0, %k] to %As : memref<?x?xf32> to memref<32x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k, %c0] to %Bs : memref<?x?xf32> to memref<32x64xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 128 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<32x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
  }
}

// -----

// Without TMA copies nothing rounds a tf32 wgmma gemm's tiles.
tile.kernel @ws_tf32_not_tma(%A: memref<?x?xf32> {tile.multiple_of = 8}, %B: memref<?x?xf32> {tile.multiple_of = 8}, %Y: memref<8xf32>)
    grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      tiles(%As, %Bs : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    tile.copy %A[%c0, %c0] to %As : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%c0, %c0] to %Bs : memref<?x?xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{copied with cp.async, not TMA}}
    memref.store %f, %Y[%c0] : memref<8xf32>
  } consumer(%k, %s) threads 128 {
    // expected-error @below {{'tile.gemm' op is a tf32 wgmma gemm in the consumer of a 'tile.warp_specialize', whose operand tiles TMA rounds to tf32 on the copy; its tiles are not copied by TMA (sm_90a, the producer copying whole tiles from kernel arguments)}}
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>, transpose_b} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
}

// -----

// A fragment lives in the consumer's threads or the whole block.
tile.kernel @ws_fragment_in_producer() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      producer(%k, %s) threads 128 {
    // expected-error @below {{'tile.clear' op uses a fragment in the producer of a 'tile.warp_specialize': a fragment lives in the consumer's threads (the block's first) or in the whole block}}
    tile.clear %acc : memref<16x16xf32, #tile.fragment>
  } consumer(%k, %s) threads 128 {
  }
}
