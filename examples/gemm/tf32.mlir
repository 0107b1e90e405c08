// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.gemm_tf32.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// RUN: FileCheck %s --check-prefix=WGMMA < %t.gemm_tf32_wgmma.ptx
// GPU-SUITE: --kernel gemm_tf32 --check --check-repeat 20 --bench --flops 2147483648
// GPU-SUITE: --kernel gemm_tf32_wgmma --check --check-repeat 20 --bench --flops 2147483648
// CPU-SUITE: --kernel gemm_tf32 --check --race-check=false
// CPU-SUITE: --kernel gemm_tf32 --race-check --blocks 2
// CPU-SUITE: --kernel gemm_tf32_wgmma --check --race-check=false
// CPU-SUITE: --kernel gemm_tf32_wgmma --race-check --blocks 2

// The seed GEMM (M = 1024, N = 512, K = 2048, f32) on tensor cores in TF32:
// inputs rounded to 10 mantissa bits, products summed in f32, as cuBLAS's
// TF32 mode does. 64 x 64 tiles (128 blocks for the 132 SMs of an H100),
// 4 warps of 32 x 32, K tiles of 32 through a 4-stage cp.async pipeline,
// mma.sync m16n8k8. The reference rounds the inputs the same way.
// H100, 2026-11-26: 23.81 us, 90 TFLOP/s (25.34 before the operand loads
// became free of bank conflicts); cuBLAS TF32 21.25 us in the same call
// (0.89x); with 128 tiles for 132 SMs each scheduler has one warp. H200,
// 2026-11-29 (cvt.rn.tf32.f32): 22.8-23.1 us, cuBLAS TF32 19.9-20.9; the
// wgmma kernels beat cuBLAS there (gemm_tf32_wgmma below, tf32_ws.mlir;
// docs/benchmarks.md, "TF32 rounded by TMA").

// CHECK-LABEL: tile.kernel @gemm_tf32
// skip_llvm_passes: LLVM passes and runs (`gvn#2`: the NVPTX backend's
// first GVN) that leave this kernel's PTX byte-identical, 8-10% of its
// compile (docs/Pipeline.md, "Per-kernel skip lists").
tile.kernel @gemm_tf32(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                       %C: memref<1024x512xf32>)
    grid [8, 16] threads [128] attributes {reference = @gemm_tf32_reference,
        skip_llvm_passes = "gvn#2,instcombine#2,early-cse#3,early-cse#4,indvars#2,correlated-propagation#1,correlated-propagation#2,sccp,dse,licm#1,simplifycfg,loop-unroll,constraint-elimination,adce,consthoist"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = affine.apply affine_map<(b) -> (b * 64)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.clear %acc : memref<64x64xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %c64 step %c1 stages 4 {
    %k0 = affine.apply affine_map<(k) -> (k * 32)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<2048x512xf32> to memref<32x64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.gemm
    tile.gemm %As, %Bs, %acc : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%m0, %n0] : memref<64x64xf32, #tile.fragment> to memref<1024x512xf32>
}

// PTX-LABEL: .entry gemm_tf32(
// PTX: cvt.rn.tf32.f32
// PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// The same product on Hopper's warp-group tensor cores (sm_90a). wgmma
// reads tf32 only K-major from shared memory and B is stored K x N, so the
// gemm computes C^T = B^T A^T: A's tile is the instruction's B operand,
// read through a descriptor, and each thread loads its part of B^T into
// registers. The one warp group holds the 64 x 64 accumulator in the
// transposed wgmma layout, which the epilogue copy writes as any other.
// The tiles (K tiles of 64: 256-byte rows, two 128-byte panels) come by
// TMA through a rolled 4-stage pipeline, rounded to tf32 on the way
// (TFLOAT32 tensor maps: the tensor cores would truncate), so no thread
// rounds them. The MMAs stay in flight into the next iteration; as they
// still read B^T's registers, the pipeline runs two copies of the body per
// loop iteration. Timings: docs/benchmarks.md, "TF32 rounded by TMA".
// CHECK-LABEL: tile.kernel @gemm_tf32_wgmma
tile.kernel @gemm_tf32_wgmma(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                             %C: memref<1024x512xf32>)
    grid [8, 16] threads [128] attributes {reference = @gemm_tf32_reference} {
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
  tile.pipelined %k = %c0 to %c32 step %c1 stages 4 rolled {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<1024x2048xf32> to memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<2048x512xf32> to memref<64x64xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.gemm {{.*}}lowering = #tile.gemm_lowering<wgmma>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%m0, %n0] : memref<64x64xf32, #tile.fragment> to memref<1024x512xf32>
}

// WGMMA-LABEL: .entry gemm_tf32_wgmma(
// WGMMA: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// WGMMA: mbarrier.try_wait.parity.shared.b64
// WGMMA-NOT: cvt.rn.tf32.f32
// WGMMA-NOT: st.shared.v4.b32
// B^T's registers, loaded as they are.
// WGMMA: ld.shared.b32
// WGMMA: wgmma.fence.sync.aligned
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, {{[{]}}%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA: wgmma.wait_group.sync.aligned 0

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
