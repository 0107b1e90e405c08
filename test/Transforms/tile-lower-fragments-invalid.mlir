// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments))'

// ldmatrix reads 16-byte rows: a view of a shared tile 4 elements (8
// bytes) into a row cannot feed mma_sync.
tile.kernel @misaligned_view() grid [1] threads [32] {
  %As = tile.alloc_shared {swizzle = 0} : memref<16x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  %a = memref.subview %As[0, 4] [16, 16] [1, 1] : memref<16x32xf16, #gpu.address_space<workgroup>> to memref<16x16xf16, strided<[32, 1], offset: 4>, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.gemm' op mma_sync lowering reads operand A with ldmatrix, whose rows must start 16-byte aligned: give it unit column stride and a static row stride and offset that are multiples of 16 bytes (got 'memref<16x16xf16, strided<[32, 1], offset: 4>, #gpu.address_space<workgroup>>'), or use lowering = #tile.gemm_lowering<scalar>}}
  tile.gemm %a, %Bs, %acc : memref<16x16xf16, strided<[32, 1], offset: 4>, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
}

