// A gemm whose A operand is chosen at run time among two shared tiles (an
// arith.select, as a block that works on two query tiles in turn would):
// block x multiplies A[x] by B. Both tiles are swizzled for wgmma; the CPU
// target reads the chosen one through the swizzle. Used by tensor-cores.test.
tile.kernel @gemm_selected_tile(%A: memref<2x64x64xf16>, %B: memref<64x64xf16>,
                                %C: memref<2x64x64xf32>)
    grid [2] threads [128] attributes {reference = @gemm_selected_tile_reference} {
  %c0 = arith.constant 0 : index
  %x = tile.block_id x
  %A0 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %A1 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %a0 = memref.subview %A[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16> to memref<64x64xf16, strided<[64, 1]>>
  %a1 = memref.subview %A[1, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16> to memref<64x64xf16, strided<[64, 1], offset: 4096>>
  tile.copy %a0 to %A0 : memref<64x64xf16, strided<[64, 1]>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %a1 to %A1 : memref<64x64xf16, strided<[64, 1], offset: 4096>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %B to %Bs : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  %second = arith.cmpi ne, %x, %c0 : index
  %As = arith.select %second, %A1, %A0 : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  %cx = memref.subview %C[%x, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
  tile.copy %acc to %cx : memref<64x64xf32, #tile.fragment> to memref<64x64xf32, strided<[64, 1], offset: ?>>
}

func.func @gemm_selected_tile_reference(%A: memref<2x64x64xf16>, %B: memref<64x64xf16>,
                                        %C: memref<2x64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %x = %c0 to %c2 step %c1 {
    scf.for %m = %c0 to %c64 step %c1 {
      scf.for %n = %c0 to %c64 step %c1 {
        %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%x, %m, %k] : memref<2x64x64xf16>
          %b = memref.load %B[%k, %n] : memref<64x64xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %next = math.fma %af, %bf, %acc : f32
          scf.yield %next : f32
        }
        memref.store %sum, %C[%x, %m, %n] : memref<2x64x64xf32>
      }
    }
  }
  return
}
