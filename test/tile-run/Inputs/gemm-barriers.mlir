// A K loop that refills shared tiles read by a tile.gemm: barrier insertion
// places one barrier after the copies (the gemm reads what they wrote) and
// one before them (the next iteration's copies overwrite what the gemm
// read). Used by tensor-cores.test to show that removing either is a race
// the CPU target reports.
tile.kernel @gemm_k_loop(%A: memref<32x64xf16>, %B: memref<64x32xf16>,
                         %C: memref<32x32xf32>)
    grid [1] threads [64] attributes {reference = @gemm_k_loop_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  tile.clear %acc : memref<32x32xf32, #tile.fragment>
  tile.serial %k = %c0 to %c4 step %c1 {
    %k0 = affine.apply affine_map<(k) -> (k * 16)>(%k)
    tile.copy %A[%c0, %k0] to %As : memref<32x64xf16> to memref<32x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0] to %Bs : memref<64x32xf16> to memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %acc : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  }
  tile.copy %acc to %C : memref<32x32xf32, #tile.fragment> to memref<32x32xf32>
}

func.func @gemm_k_loop_reference(%A: memref<32x64xf16>, %B: memref<64x32xf16>,
                                 %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c32 step %c1 {
    scf.for %n = %c0 to %c32 step %c1 {
      %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<32x64xf16>
        %b = memref.load %B[%k, %n] : memref<64x32xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      memref.store %sum, %C[%m, %n] : memref<32x32xf32>
    }
  }
  return
}
