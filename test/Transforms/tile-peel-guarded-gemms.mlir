// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-peel-guarded-gemms))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-peel-guarded-gemms,tile-schedule-wgmma-waits))' | FileCheck %s --check-prefix=WAITS

// Attention's rotated loop: P V from the second iteration on, S up to the
// last block; %blocks >= 1, so the loop runs at least twice. The first
// iteration keeps S and the softmax, the last P V only, the loop between
// both gemms with no condition; the mask's own condition (not decided by
// the bounds) stays.
// CHECK-LABEL: tile.kernel @rotated
// CHECK: %[[BLOCKS:.+]] = affine.max
// CHECK: %[[N:.+]] = arith.addi %[[BLOCKS]], %{{.+}} : index
// The first iteration: S and its softmax.
// CHECK-NOT: scf.for
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[S:[a-z0-9_]+]] {clear
// CHECK-NOT: tile.gemm %
// CHECK: tile.reduce max %[[S]]
// CHECK-NOT: tile.gemm %
// CHECK: %[[LAST:.+]] = arith.subi %[[N]], %{{.+}} : index
// CHECK: %[[FROM:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK: scf.for %[[J:.+]] = %[[FROM]] to %[[LAST]] step %{{.+}} {
// CHECK-NOT: scf.if
// CHECK: tile.parallel
// CHECK-NOT: scf.if
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[S]] {clear
// CHECK-NEXT: tile.gemm %{{.+}}, %{{.+}}, %[[ACC:[a-z0-9_]+]] {lowering
// CHECK-NEXT: %[[PARTIAL:.+]] = arith.cmpi eq, %[[J]], %{{.+}}
// CHECK-NEXT: scf.if %[[PARTIAL]] {
// CHECK: tile.reduce max %[[S]]
// CHECK: tile.copy %[[S]] to
// CHECK-NEXT: }
// The last iteration: the rescale and P V.
// CHECK-NOT: tile.reduce
// CHECK: tile.parallel
// CHECK-NOT: tile.reduce
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[ACC]] {lowering
// CHECK-NOT: tile.reduce
// CHECK: tile.copy %[[S]] to
// CHECK-NEXT: }
// The waits then see each part's gemms in its block: in the loop, S's wait
// leaves P V in flight during the mask and the softmax.
// WAITS-LABEL: tile.kernel @rotated
// WAITS: scf.for
// WAITS: tile.gemm {{.*}}tile.wgmma_deferred
// WAITS-NEXT: tile.gemm {{.*}}tile.wgmma_deferred
// WAITS-NEXT: arith.cmpi
// WAITS-NEXT: tile.wgmma_wait 1
tile.kernel @rotated(%n: index) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  %mx = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %blocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%n]
  %iterations = arith.addi %blocks, %c1 : index
  scf.for %j = %c0 to %iterations step %c1 {
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %blocks : index
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 64] {
        %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
        %r = arith.mulf %o, %two : f32
        memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    scf.if %has_scores {
      %partial = arith.cmpi eq, %j, %n : index
      scf.if %partial {
        tile.parallel (%i, %c) in [128, 64] {
          %s = memref.load %S[%i, %c] : memref<128x64xf32, #tile.fragment>
          %h = arith.mulf %s, %two : f32
          memref.store %h, %S[%i, %c] : memref<128x64xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mx dim 1 clear : memref<128x64xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x64xf32, #tile.fragment> to memref<128x64xf16, #tile.fragment>
  }
}

// -----

// The trip count may be below 2 (%n may be 0 or 1): peeling would need the
// peeled iterations under conditions, which is what it is meant to avoid.
// The loop stays, with a remark.
// CHECK-LABEL: tile.kernel @short
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tile.gemm
// CHECK-NOT: tile.gemm %
tile.kernel @short(%n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-remark @+1 {{not peeled: its gemms stay under conditions (the step is not 1 or the trip count not provably at least 2)}}
  scf.for %j = %c0 to %n step %c1 {
    %later = arith.cmpi ugt, %j, %c0 : index
    scf.if %later {
      tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
  }
}

// -----

// Peeled, but the guard compares with a value the bounds do not relate to
// the iteration (%m): the gemm stays conditional in every part; one
// remark says so.
// CHECK-LABEL: tile.kernel @undecided
// CHECK-COUNT-3: scf.if
tile.kernel @undecided(%m: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  scf.for %j = %c0 to %c4 step %c1 {
    %before = arith.cmpi ult, %j, %m : index
    // expected-remark @+1 {{this gemm stays under a condition that the peeled loop's bounds do not decide (in 3 of the 3 parts)}}
    scf.if %before {
      tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
  }
}

// -----

// A guard that does not depend on the iteration: nothing to peel.
// CHECK-LABEL: tile.kernel @invariant
// CHECK: scf.for
// CHECK-NOT: scf.for
tile.kernel @invariant(%flag: i1) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  scf.for %j = %c0 to %c4 step %c1 {
    scf.if %flag {
      tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
  }
}

// -----

// Carried values: the first part's yields start the loop, the loop's
// results feed the last part (also inside its regions), whose yields
// replace the loop's results after it. A decided `scf.if` with results
// takes the values its branch yields.
// CHECK-LABEL: tile.kernel @carried
// CHECK: %[[FIRST:.+]] = arith.addi %[[C0:.+]], %[[C0]] : index
// CHECK: %[[SUM:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[FIRST]]) -> (index) {
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: memref.store %[[ACC]]
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[ACC]], %[[C1:.+]] : index
// CHECK-NEXT: scf.yield %[[NEXT]] : index
// CHECK: tile.gemm
// CHECK-NEXT: memref.store %[[SUM]]
// CHECK-NEXT: %[[LAST:.+]] = arith.addi %[[SUM]], %[[C1]] : index
// CHECK-NEXT: memref.store %[[LAST]]
tile.kernel @carried(%out: memref<4xindex>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    %later = arith.cmpi ugt, %j, %c0 : index
    %step = scf.if %later -> (index) {
      tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      memref.store %acc, %out[%c1] : memref<4xindex>
      scf.yield %c1 : index
    } else {
      scf.yield %c0 : index
    }
    %next = arith.addi %acc, %step : index
    scf.yield %next : index
  }
  memref.store %sum, %out[%c0] : memref<4xindex>
}

// -----

// A loop whose gemm a pipeline leaves in flight waits for it after the
// loop: not peeled, though its other gemm is guarded.
// CHECK-LABEL: tile.kernel @in_flight
// CHECK: scf.for
// CHECK-NOT: scf.for
tile.kernel @in_flight() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %D = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  scf.for %j = %c0 to %c4 step %c1 {
    tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>, tile.wgmma_in_flight} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    %later = arith.cmpi ugt, %j, %c0 : index
    scf.if %later {
      tile.gemm %As, %Bs, %D {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    }
  }
}

// -----

// A guard inside a guard: where the outer one is decided and its branch
// inlined, the inner one, now at the top level, is decided too. The first
// iteration (j = 0) has neither; the loop between (1 <= j < 3) and the last
// (j = 3, past %c3) are decided as well: one gemm left, in the loop, with
// no condition around it.
// CHECK-LABEL: tile.kernel @nested
// CHECK-NOT: scf.if
// CHECK-NOT: tile.gemm %
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: tile.gemm
// CHECK-NOT: scf.if
// CHECK: }
// CHECK-NOT: tile.gemm %
tile.kernel @nested() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  scf.for %j = %c0 to %c4 step %c1 {
    %later = arith.cmpi ugt, %j, %c0 : index
    scf.if %later {
      %early = arith.cmpi ult, %j, %c3 : index
      scf.if %early {
        tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
    }
  }
}

// -----

// The inner guard compares with a value the bounds do not relate to the
// iteration: once the outer guard is decided, the inner one is reported
// (it was hidden inside the outer branch before).
// CHECK-LABEL: tile.kernel @nested_undecided
tile.kernel @nested_undecided(%m: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  scf.for %j = %c0 to %c4 step %c1 {
    %later = arith.cmpi ugt, %j, %c0 : index
    scf.if %later {
      %before = arith.cmpi ult, %j, %m : index
      // expected-remark @+1 {{this gemm stays under a condition that the peeled loop's bounds do not decide (in 2 of the 3 parts)}}
      scf.if %before {
        tile.gemm %As, %Bs, %C {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
      }
    }
  }
}
