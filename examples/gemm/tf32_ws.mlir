// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --check-repeat 20 --bench --flops 2147483648
// CPU-SUITE: --check --race-check=false
// CPU-SUITE: --race-check --blocks 2

// The seed GEMM of tf32.mlir (M = 1024, N = 512, K = 2048, f32 in TF32) on
// Hopper's warp-group tensor cores, warp-specialized. wgmma reads f32 from
// shared memory and drops the low 13 mantissa bits, while tile.gemm rounds
// to nearest, ties to even (as cuBLAS's TF32 mode does). Here the TMA
// copies round on the way: tile-lower-warp-specialize gives the tiles of a
// tf32 gemm TFLOAT32 tensor maps (`tile.tma_load {round_tf32}`), so no
// thread rounds anything (cuBLAS's TF32 kernels load theirs the same way).
// As B is stored K x N the product is computed transposed, C^T = B^T A^T:
// the consumer warp group loads B^T into registers from the rounded tile,
// and its MMAs stay in flight into the next iteration, two iterations per
// loop iteration. Timings: docs/benchmarks.md, "TF32 rounded by TMA".

// CHECK-LABEL: tile.kernel @gemm_tf32_ws
tile.kernel @gemm_tf32_ws(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                          %C: memref<1024x512xf32>)
    grid [8, 16] threads [256] attributes {reference = @gemm_tf32_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = affine.apply affine_map<(b) -> (b * 64)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %As = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.clear %acc : memref<64x64xf32, #tile.fragment>
  // CHECK: tile.warp_specialize {{.*}} stages 6
  tile.warp_specialize %c0 to %c32 step %c1 stages 6
      tiles(%As, %Bs : memref<64x64xf32, #gpu.address_space<workgroup>>,
                       memref<64x64xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<1024x2048xf32> to memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<2048x512xf32> to memref<64x64xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 128 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%m0, %n0] : memref<64x64xf32, #tile.fragment> to memref<1024x512xf32>
}

// PTX-LABEL: .entry gemm_tf32_ws(
// PTX-NOT: cvt.rn.tf32.f32
// PTX-NOT: fence.proxy.async
// The issuing thread: the tiles rounded by the copies (TFLOAT32 maps).
// PTX: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// The consumer: B^T's registers loaded as they are, the MMAs in flight.
// PTX: ld.shared.b32
// PTX: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// PTX: wgmma.wait_group.sync.aligned 1
// PTX-NOT: cvt.rn.tf32.f32
// PTX-NOT: st.shared.v4.b32

func.func @gemm_tf32_reference(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                               %C: memref<1024x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  // x rounded to tf32: to nearest, ties to even (cvt.rn.tf32.f32, TMA's
  // TFLOAT32 copies, cuBLAS's TF32 mode): bits + 0xfff + bit 13, the low
  // 13 bits cleared (the inputs are finite).
  %half = arith.constant 4095 : i32
  %c13 = arith.constant 13 : i32
  %one = arith.constant 1 : i32
  %mask = arith.constant -8192 : i32
  scf.for %m = %c0 to %c1024 step %c1 {
    scf.for %n = %c0 to %c512 step %c1 {
      %sum = scf.for %k = %c0 to %c2048 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<1024x2048xf32>
        %b = memref.load %B[%k, %n] : memref<2048x512xf32>
        %ai = arith.bitcast %a : f32 to i32
        %bi = arith.bitcast %b : f32 to i32
        %ash = arith.shrui %ai, %c13 : i32
        %bsh = arith.shrui %bi, %c13 : i32
        %aodd = arith.andi %ash, %one : i32
        %bodd = arith.andi %bsh, %one : i32
        %ahalf = arith.addi %ai, %half : i32
        %bhalf = arith.addi %bi, %half : i32
        %aup = arith.addi %ahalf, %aodd : i32
        %bup = arith.addi %bhalf, %bodd : i32
        %ari = arith.andi %aup, %mask : i32
        %bri = arith.andi %bup, %mask : i32
        %ar = arith.bitcast %ari : i32 to f32
        %br = arith.bitcast %bri : i32 to f32
        %next = math.fma %ar, %br, %acc : f32
        scf.yield %next : f32
      }
      memref.store %sum, %C[%m, %n] : memref<1024x512xf32>
    }
  }
  return
}
