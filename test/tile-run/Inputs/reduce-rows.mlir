// tile.reduce on fragments. @softmax_rows: the accumulator of a gemm (mma
// layout, warps [2, 2]: a row is spread over the 4 lanes of a quad and over
// 2 warps) reduced along rows (max, then sum) and along columns, the row
// results read back as broadcasts in tile.parallel, and copied out (each
// element once, by one of the threads holding it).
tile.kernel @softmax_rows(%A: memref<64x16xf16>, %B: memref<16x64xf16>,
                          %P: memref<64x64xf32>, %RowMax: memref<64xf32>,
                          %ColSum: memref<64xf32>)
    grid [1] threads [128] attributes {reference = @softmax_reference} {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%c0, %c0] to %As : memref<64x16xf16> to memref<64x16xf16, #gpu.address_space<workgroup>>
  tile.copy %B[%c0, %c0] to %Bs : memref<16x64xf16> to memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %max = tile.alloc_fragment : memref<64xf32, #tile.fragment>
  %sum = tile.alloc_fragment : memref<64xf32, #tile.fragment>
  %cols = tile.alloc_fragment : memref<64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, warps = array<i64: 2, 2>} : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.reduce add %acc into %cols dim 0 clear : memref<64x64xf32, #tile.fragment> into memref<64xf32, #tile.fragment>
  tile.reduce max %acc into %max dim 1 clear : memref<64x64xf32, #tile.fragment> into memref<64xf32, #tile.fragment>
  tile.parallel (%i, %j) in [64, 64] {
    %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    %m = memref.load %max[%i] : memref<64xf32, #tile.fragment>
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    memref.store %e, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
  }
  tile.reduce add %acc into %sum dim 1 clear : memref<64x64xf32, #tile.fragment> into memref<64xf32, #tile.fragment>
  tile.parallel (%i, %j) in [64, 64] {
    %e = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    %s = memref.load %sum[%i] : memref<64xf32, #tile.fragment>
    %p = arith.divf %e, %s : f32
    memref.store %p, %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %P[%c0, %c0] : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
  tile.copy %max to %RowMax[%c0] : memref<64xf32, #tile.fragment> to memref<64xf32>
  tile.copy %cols to %ColSum[%c0] : memref<64xf32, #tile.fragment> to memref<64xf32>
}

func.func @softmax_reference(%A: memref<64x16xf16>, %B: memref<16x64xf16>,
                             %P: memref<64x64xf32>, %RowMax: memref<64xf32>,
                             %ColSum: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %S = memref.alloc() : memref<64x64xf32>
  scf.for %m = %c0 to %c64 step %c1 {
    scf.for %n = %c0 to %c64 step %c1 {
      %dot = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<64x16xf16>
        %b = memref.load %B[%k, %n] : memref<16x64xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      memref.store %dot, %S[%m, %n] : memref<64x64xf32>
    }
  }
  scf.for %n = %c0 to %c64 step %c1 {
    %cs = scf.for %m = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %S[%m, %n] : memref<64x64xf32>
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    memref.store %cs, %ColSum[%n] : memref<64xf32>
  }
  scf.for %m = %c0 to %c64 step %c1 {
    %mx = scf.for %n = %c0 to %c64 step %c1 iter_args(%acc = %ninf) -> (f32) {
      %x = memref.load %S[%m, %n] : memref<64x64xf32>
      %next = arith.maximumf %acc, %x : f32
      scf.yield %next : f32
    }
    memref.store %mx, %RowMax[%m] : memref<64xf32>
    %sm = scf.for %n = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %S[%m, %n] : memref<64x64xf32>
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      %next = arith.addf %acc, %e : f32
      scf.yield %next : f32
    }
    scf.for %n = %c0 to %c64 step %c1 {
      %x = memref.load %S[%m, %n] : memref<64x64xf32>
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      %p = arith.divf %e, %sm : f32
      memref.store %p, %P[%m, %n] : memref<64x64xf32>
    }
  }
  memref.dealloc %S : memref<64x64xf32>
  return
}
