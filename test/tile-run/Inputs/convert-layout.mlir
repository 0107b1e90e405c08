// An explicit layout conversion: the gemm's accumulator (mma layout) is
// copied with `convert_layout` into a fragment of the blocked layout, which
// a tile.parallel scales and a copy writes out. The conversion goes through
// a shared tile; barrier insertion places the barrier between its write
// and its read (test-skip-barrier removes it: a race).
tile.kernel @convert(%A: memref<32x16xf16>, %B: memref<16x32xf16>,
                     %C: memref<32x32xf32>)
    grid [1] threads [64] attributes {reference = @reference} {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%c0, %c0] to %As : memref<32x16xf16> to memref<32x16xf16, #gpu.address_space<workgroup>>
  tile.copy %B[%c0, %c0] to %Bs : memref<16x32xf16> to memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  %rows = tile.alloc_fragment {layout = #tile.layout<shape = [32, 32], threads = 64, registers = 16, map = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 16 + d1)>} : memref<32x32xf32, #tile.fragment>
  tile.copy %acc to %rows {convert_layout} : memref<32x32xf32, #tile.fragment> to memref<32x32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %x = memref.load %rows[%i, %j] : memref<32x32xf32, #tile.fragment>
    %two = arith.constant 2.0 : f32
    %y = arith.mulf %x, %two : f32
    memref.store %y, %rows[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
  tile.copy %rows to %C[%c0, %c0] : memref<32x32xf32, #tile.fragment> to memref<32x32xf32>
}

func.func @reference(%A: memref<32x16xf16>, %B: memref<16x32xf16>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %m = %c0 to %c32 step %c1 {
    scf.for %n = %c0 to %c32 step %c1 {
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<32x16xf16>
        %b = memref.load %B[%k, %n] : memref<16x32xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      %y = arith.mulf %sum, %two : f32
      memref.store %y, %C[%m, %n] : memref<32x32xf32>
    }
  }
  return
}
