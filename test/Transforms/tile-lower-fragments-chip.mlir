// RUN: tile-opt %s -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments{chip=sm_80}))'

// wgmma is Hopper's (sm_90a): compiled for another chip, the gemm says so.
tile.kernel @wgmma_on_sm80() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering needs sm_90a (Hopper warp-group MMAs), but the kernel is compiled for sm_80: use lowering = #tile.gemm_lowering<mma_sync> or compile with chip=sm_90a}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}
