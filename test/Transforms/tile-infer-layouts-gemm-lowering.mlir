// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts{gemm-lowering=wgmma}))' -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts{gemm-lowering=mma_sync}))' | FileCheck %s --check-prefix=MMA
// RUN: not tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts{gemm-lowering=fast}))' 2>&1 | FileCheck %s --check-prefix=BAD

// The pipeline's gemm-lowering is written on the gemms that leave the
// choice, before inference: a wgmma gemm's warps split M only ([8, 1] for
// two warp groups over 128 rows; an mma.sync split would be [2, 4]) and
// its operands are aligned for descriptors. A gemm that chose keeps its
// lowering.
// CHECK-LABEL: tile.kernel @auto_gemm
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64}
// CHECK: tile.gemm {{.*}} {clear, lowering = #tile.gemm_lowering<wgmma>, warps = array<i64: 8, 1>}
// CHECK: tile.gemm {{.*}} {lowering = #tile.gemm_lowering<mma_sync>, warps = array<i64: 2, 4>}
// MMA-LABEL: tile.kernel @auto_gemm
// MMA: tile.gemm {{.*}} {clear, lowering = #tile.gemm_lowering<mma_sync>, warps = array<i64: 2, 4>}
// MMA: tile.gemm {{.*}} {lowering = #tile.gemm_lowering<mma_sync>, warps = array<i64: 2, 4>}
// BAD: error: tile-infer-layouts: gemm-lowering must be 'mma_sync', 'wgmma' or 'scalar', got 'fast'
tile.kernel @auto_gemm() grid [1] threads [256] {
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  %acc2 = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc2 {lowering = #tile.gemm_lowering<mma_sync>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
}

// -----

// A gemm that wgmma cannot run (two warps are not a warp group): the op's
// own error, with a note naming the option.
tile.kernel @not_a_warp_group() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
  // expected-error @+2 {{'tile.gemm' op wgmma lowering runs on whole warp groups (4 warps): the block has 2 warps}}
  // expected-note @+1 {{the lowering is the pipeline's gemm-lowering=wgmma; give this gemm its own `lowering` to choose another}}
  tile.gemm %As, %Bs, %acc {clear} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
}
