// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-schedule-wgmma-waits))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-schedule-wgmma-waits{chip=sm_80}))' | FileCheck %s --check-prefix=SM80

// Attention's rotated step: S = Q K^T and O += P V are deferred; the
// rescale of O between them touches neither S nor what the first reads;
// the mask is the first use of S: wait until one group (P V) is left; the
// copy of S into P rewrites P, which P V reads: wait for all. The loop
// body ends with nothing in flight.
// CHECK-LABEL: tile.kernel @rotated
// CHECK: scf.for
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %[[S:[a-z0-9_]+]] {{{.*}}tile.wgmma_deferred
// CHECK-NEXT: tile.parallel
// CHECK: tile.gemm %[[P:[a-z0-9_]+]], %{{.+}}, %[[ACC:[a-z0-9_]+]] {{{.*}}tile.wgmma_deferred
// CHECK-NEXT: tile.wgmma_wait 1, %[[S]] :
// CHECK-NEXT: tile.parallel
// CHECK: tile.reduce max %[[S]]
// CHECK-NEXT: tile.wgmma_wait 0, %[[ACC]] :
// CHECK-NEXT: tile.copy %[[S]] to %[[P]]
// CHECK-NEXT: }
// Not on chips without wgmma.
// SM80-LABEL: tile.kernel @rotated
// SM80-NOT: tile.wgmma_deferred
// SM80-NOT: tile.wgmma_wait
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
  scf.for %j = %c0 to %n step %c1 {
    tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %d) in [128, 64] {
      %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      %r = arith.mulf %o, %two : f32
      memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    }
    tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %c) in [128, 64] {
      %s = memref.load %S[%i, %c] : memref<128x64xf32, #tile.fragment>
      %h = arith.mulf %s, %two : f32
      memref.store %h, %S[%i, %c] : memref<128x64xf32, #tile.fragment>
    }
    tile.reduce max %S into %mx dim 1 clear : memref<128x64xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    tile.copy %S to %P : memref<128x64xf32, #tile.fragment> to memref<128x64xf16, #tile.fragment>
  }
}

// -----

// A write to shared memory waits for the gemms that read shared memory
// (it could be their operand); the end of the block waits for the rest.
// CHECK-LABEL: tile.kernel @shared_write
// CHECK: tile.gemm {{.*}}tile.wgmma_deferred
// CHECK-NEXT: memref.load
// CHECK-NEXT: tile.wgmma_wait 0, %{{.+}} :
// CHECK-NEXT: memref.store %{{.+}}, %{{.+}}[%c0{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: tile.gemm {{.*}}tile.wgmma_deferred
// CHECK-NEXT: tile.wgmma_wait 0, %{{.+}} :
// CHECK-NEXT: }
tile.kernel @shared_write(%x: memref<64xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %other = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  %v = memref.load %x[%c0] : memref<64xf32>
  memref.store %v, %other[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// tf32 gemms (rounded in place between barriers) keep their own wait.
// CHECK-LABEL: tile.kernel @tf32
// CHECK-NOT: tile.wgmma_deferred
// CHECK-NOT: tile.wgmma_wait
tile.kernel @tf32() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}
