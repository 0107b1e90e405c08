// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-warp-specialize{tma=true},tile-schedule-wgmma-waits))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-warp-specialize{tma=true},tile-peel-guarded-gemms))' | FileCheck %s --check-prefix=PEEL

// A `pingpong` consumer of two warp groups: group g = warp / 4 waits on
// named barrier 2 + g (bar.sync, 256 threads: its own 128 and the other
// group's arrival) before its first gemm of an iteration, and arrives on
// the other group's, 2 + (g + 1) mod 2, after its last. Group 1 gives
// group 0 its first turn before the loop; group 0 takes group 1's final
// turn after it. The turns do not make the deferred gemms wait: the wait
// for S comes only before its first use, with P V (newer) left in flight.
// CHECK-LABEL: tile.kernel @pingpong
// CHECK: %[[CONS:.+]] = arith.cmpi ult, %[[WARP:[0-9]+]], %c8
// CHECK: scf.if %[[CONS]] {
// CHECK: %[[GROUP:.+]] = arith.divui %[[WARP]], %c4
// CHECK: %[[NEXT0:.+]] = arith.addi %[[GROUP]], %c1
// CHECK: %[[NEXT:.+]] = arith.remui %[[NEXT0]], %c2
// CHECK: %[[OWN0:.+]] = arith.addi %[[GROUP]], %c2
// CHECK: %[[OWN:.+]] = arith.index_castui %[[OWN0]] : index to i32
// CHECK: %[[NEXT1:.+]] = arith.addi %[[NEXT]], %c2
// CHECK: %[[NEXTID:.+]] = arith.index_castui %[[NEXT1]] : index to i32
// CHECK: %[[COUNT:.+]] = arith.constant 256 : i32
// CHECK: %[[FIRST:.+]] = arith.constant 2 : i32
// CHECK: %[[LAST:.+]] = arith.cmpi eq, %[[GROUP]], %c1
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: nvvm.barrier.arrive id = %[[FIRST]] number_of_threads = %[[COUNT]] {tile.pingpong_turn}
// CHECK-NEXT: }
// CHECK: %[[ZERO:.+]] = arith.cmpi eq, %[[GROUP]], %c0
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.barrier id = %[[OWN]] number_of_threads = %[[COUNT]] {tile.pingpong_turn}
// CHECK-NEXT: tile.gemm %{{.+}}, %{{.+}}, %[[S:[0-9]+]] {{{.*}}tile.wgmma_deferred
// CHECK-NEXT: tile.parallel
// CHECK: tile.gemm {{.*}}tile.wgmma_deferred
// CHECK-NEXT: nvvm.barrier.arrive id = %[[NEXTID]] number_of_threads = %[[COUNT]] {tile.pingpong_turn}
// CHECK-NEXT: tile.wgmma_wait 1, %[[S]] :
// CHECK: tile.wgmma_wait 0
// CHECK: nvgpu.mbarrier.arrive
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[ZERO]] {
// CHECK-NEXT: nvvm.barrier id = %[[FIRST]] number_of_threads = %[[COUNT]] {tile.pingpong_turn}
// CHECK-NEXT: }
tile.kernel @pingpong(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q[%c0, %c0] to %Qs : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  tile.clear %P : memref<128x64xf16, #tile.fragment>
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks, %Vs : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    %n0 = affine.apply affine_map<(j) -> (j * 64)>(%j)
    tile.copy %K[%n0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %V[%n0, %c0] to %Vs : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 pingpong {
    tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %d) in [128, 64] {
      %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      %r = arith.mulf %o, %two : f32
      memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    }
    tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %c) in [128, 64] {
      %s = memref.load %S[%i, %c] : memref<128x64xf32, #tile.fragment>
      %e = math.exp2 %s : f32
      memref.store %e, %S[%i, %c] : memref<128x64xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x64xf32, #tile.fragment> to memref<128x64xf16, #tile.fragment>
  }
  tile.copy %acc to %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
}

// -----

// Gemms under conditions on the iteration (the rotated loop's first and
// last iterations): the turn brackets the ops that hold them, and the
// gemms get the pipeline's attributes. tile-peel-guarded-gemms then takes
// the gemms out of their branches (PEEL): the first iteration issues S in
// its turn, the loop both gemms, the last P V.
// CHECK-LABEL: tile.kernel @guarded
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}} {tile.pingpong_turn}
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.gemm {{.*}}tile.tma_operands
// CHECK: scf.if
// CHECK-NEXT: tile.gemm {{.*}}tile.tma_operands
// Unpeeled, a gemm in a branch is waited for there.
// CHECK-NEXT: tile.wgmma_wait 0
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %{{.+}} {tile.pingpong_turn}
// PEEL-LABEL: tile.kernel @guarded
// PEEL: nvvm.barrier id = %{{.+}} {tile.pingpong_turn}
// PEEL-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {clear
// PEEL-NEXT: nvvm.barrier.arrive id = %{{.+}} {tile.pingpong_turn}
// PEEL: scf.for
// PEEL: nvvm.barrier id = %{{.+}} {tile.pingpong_turn}
// PEEL-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {clear
// PEEL-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {lowering
// PEEL-NEXT: nvvm.barrier.arrive id = %{{.+}} {tile.pingpong_turn}
// PEEL: }
// PEEL: nvvm.barrier id = %{{.+}} {tile.pingpong_turn}
// PEEL-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} {lowering
// PEEL-NEXT: nvvm.barrier.arrive id = %{{.+}} {tile.pingpong_turn}
tile.kernel @guarded(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q[%c0, %c0] to %Qs : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c9 step %c1 stages 2
      tiles(%Ks, %Vs : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    %n0 = affine.apply affine_map<(j) -> (j * 64)>(%j)
    tile.copy %K[%n0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 64 - 64)>(%j)
    tile.copy %V[%v0, %c0] to %Vs : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 pingpong {
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %c8 : index
    scf.if %has_scores {
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x64xf32, #tile.fragment> to memref<128x64xf16, #tile.fragment>
  }
  tile.copy %acc to %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
}

// -----

// Turns need warp groups to take them, and gemms to bracket.
tile.kernel @one_group(%K: memref<1024x64xf16>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{pingpong needs a consumer of at least two warp groups (256 threads) to take turns, got 128 threads}}
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    tile.copy %K[%c0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 128 pingpong {
  }
}

// -----

tile.kernel @no_gemm(%K: memref<1024x64xf16>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{pingpong: the consumer region has no 'tile.gemm' (the turns bracket its gemms)}}
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    tile.copy %K[%c0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 pingpong {
  }
}

// -----

// The turns take barriers 2 and 3 (two warp groups): not the role's own.
tile.kernel @turn_barrier_taken(%K: memref<1024x64xf16>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    tile.copy %K[%c0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 pingpong {
    tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    %id = arith.constant 3 : i32
    %count = arith.constant 256 : i32
    // expected-error @below {{'nvvm.barrier.arrive' in the consumer of a 'tile.warp_specialize' uses a named barrier that the lowering uses itself: barriers 2 and up (one per warp group) are the pingpong consumer's turns; take another id (up to 15)}}
    nvvm.barrier.arrive id = %id number_of_threads = %count
  }
}

// -----

// The turns' barriers are the whole block's: the producer may not take them
// either.
tile.kernel @turn_barrier_taken_by_producer(%K: memref<1024x64xf16>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    tile.copy %K[%c0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %id = arith.constant 2 : i32
    %count = arith.constant 128 : i32
    // expected-error @below {{'nvvm.barrier' in the producer of a 'tile.warp_specialize' uses a named barrier that the lowering uses itself: barriers 2 and up (one per warp group) are the pingpong consumer's turns; take another id (up to 15)}}
    nvvm.barrier id = %id number_of_threads = %count
  } consumer(%j, %st) threads 256 pingpong {
    tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
  }
}
