// C = A B accumulated in f16 (the f16 form of mma.sync m16n8k16 on the
// GPU, f16 FMAs in the scalar lowering), K = 32: two roundings per element
// on the GPU, 32 in the scalar lowering, both within the f16 tolerance of a
// reference that accumulates in f32.
tile.kernel @gemm_f16_accumulate(%A: memref<64x32xf16>, %B: memref<32x64xf16>,
                                 %C: memref<64x64xf16>)
    grid [1] threads [128] attributes {reference = @reference} {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%c0, %c0] to %As : memref<64x32xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
  tile.copy %B[%c0, %c0] to %Bs : memref<32x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<64x64xf16, #tile.fragment> to memref<64x64xf16>
}

func.func @reference(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c64 step %c1 {
    scf.for %n = %c0 to %c64 step %c1 {
      %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<64x32xf16>
        %b = memref.load %B[%k, %n] : memref<32x64xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      %r = arith.truncf %sum : f32 to f16
      memref.store %r, %C[%m, %n] : memref<64x64xf16>
    }
  }
  return
}
