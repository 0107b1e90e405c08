// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.gemm_f16.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// wgmma is Hopper's (sm_90a): for another chip the op says so.
// RUN: not tile-opt %s --tile-to-ptx='chip=sm_80' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// Without TMA the tiles are copied by every thread with cp.async.
// RUN: tile-opt %s --tile-to-ptx='tma=false ptx-output=%t.cp.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=CPASYNC < %t.cp.gemm_f16.ptx
// GPU-SUITE: --kernel gemm_f16 --shape A=1000x600 --shape B=600x520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_f16 --shape A=1024x1024 --shape B=1024x1024 --shape C=1024x1024 --check --check-repeat 20
// GPU-SUITE: --kernel gemm_f16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// GPU-SUITE: --kernel gemm_bf16 --shape A=1000x600 --shape B=600x520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_bf16 --shape A=2056x256 --shape B=256x4104 --shape C=2056x4104 --check
// GPU-SUITE: --kernel gemm_bf16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// CPU-SUITE: --kernel gemm_f16 --shape A=200x136 --shape B=136x264 --shape C=200x264 --check
// CPU-SUITE: --kernel gemm_bf16 --shape A=520x64 --shape B=64x776 --shape C=520x776 --check

// C = A B on Hopper's warp-group tensor cores (wgmma), f16 or bf16 inputs,
// f32 accumulation, any shape whose sizes are multiples of 8: each block of
// two warp groups computes a 128 x 256 tile of C over K tiles of 64,
// streamed through shared memory by a 4-stage pipeline. The gemm asks for
// `wgmma`; the rest is inferred: the warps split M (64 rows per warp
// group), the shared tiles are 128-byte swizzled and aligned to 1024 bytes
// (the layout wgmma's descriptors read), and the accumulator is the same
// fragment layout as mma.sync's, so the epilogue copy is unchanged. On
// sm_90a the copies are TMA's (one thread issues them; each stage
// completes on an mbarrier; `tile.multiple_of = 8` makes the row
// pitches TMA-legal), and the pipeline leaves each iteration's MMAs in
// flight while the next waits for its tiles (copies two tiles ahead).
// On the CPU target the copies are plain and the gemm computes the same
// layout with FMAs.
// H200, 2026-11-25: f16 4096^3 204.3 us, 673 TFLOP/s; bf16 198.0 us, 694
// (in the same call cuBLAS 181.9 / 189.3 us: 0.89x / 0.96x; Triton tuned
// 222.2 / 212.5 us); 8192^3 f16 1758 us, bf16 1682 (0.95x / 0.96x
// cuBLAS). With cp.async (--tma=false) 533 / 540 TFLOP/s at 4096^3; the
// grouped block order gave 6% at 8192^3. H100, 2026-11-27, the copy out
// in 16-byte stores: f16 4096^3 191.3 us (0.96x cuBLAS), bf16 185.8
// (1.01x); 8192^3 1484 / 1510 us (1.12x / 1.03x). docs/benchmarks.md.
// Both kernels ask for the lean LLVM pipeline (`llvm_passes = "lean"`):
// the same speed as O3 on the H200, 2026-12-03 (f16 188.9 / 188.7 us, bf16
// 182.8 / 182.8), 14% fewer compile instructions (gemm_f16 370 -> 317 M).

// CHECK-LABEL: tile.kernel @gemm_f16
tile.kernel @gemm_f16(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                      %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [?, ?] threads [256] attributes {reference = @gemm_f16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // Blocks in groups of 8 tile rows (Triton's GROUP_SIZE_M): the blocks
  // that run at once share their A rows and B columns in L2.
  %bx = tile.block_id x
  %by = tile.block_id y
  %gx = tile.grid_dim x
  %gy = tile.grid_dim y
  %c8 = arith.constant 8 : index
  %pid = affine.apply affine_map<(x, y)[w] -> (y * w + x)>(%bx, %by)[%gx]
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %rows = arith.minui %left, %c8 : index
  %inner = arith.remui %pid, %width : index
  %row = arith.remui %inner, %rows : index
  %mt = arith.addi %first, %row : index
  %nt = arith.divui %inner, %rows : index
  %m0 = affine.apply affine_map<(b) -> (b * 128)>(%mt)
  %n0 = affine.apply affine_map<(b) -> (b * 256)>(%nt)
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %kt step %c1 stages 4 rolled {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.gemm {{.*}}lowering = #tile.gemm_lowering<wgmma>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%m0, %n0] : memref<128x256xf32, #tile.fragment> to memref<?x?xf16>
} grid_size {
^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %C, %c0 : memref<?x?xf16>
  %N = memref.dim %C, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c256 : index
  %gy = arith.ceildivui %M, %c128 : index
  tile.yield %gx, %gy : index, index
}

// PTX-LABEL: .entry gemm_f16(
// PTX: fence.proxy.tensormap::generic.acquire.sys
// PTX: mbarrier.init.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// Only TMA wrote the operands: no fence.proxy.async before the MMAs.
// PTX-NOT: fence.proxy.async.shared::cta
// PTX: wgmma.fence.sync.aligned
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned 0

// SM80: error: 'tile.gemm' op wgmma lowering needs sm_90a

// CPASYNC-NOT: cp.async.bulk.tensor
// CPASYNC: cp.async.cg.shared.global
// CPASYNC: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16

// The same for bf16.
// CHECK-LABEL: tile.kernel @gemm_bf16
tile.kernel @gemm_bf16(%A: memref<?x?xbf16> {tile.multiple_of = 8}, %B: memref<?x?xbf16> {tile.multiple_of = 8},
                      %C: memref<?x?xbf16> {tile.multiple_of = 8})
    grid [?, ?] threads [256] attributes {reference = @gemm_bf16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // Blocks in groups of 8 tile rows (Triton's GROUP_SIZE_M): the blocks
  // that run at once share their A rows and B columns in L2.
  %bx = tile.block_id x
  %by = tile.block_id y
  %gx = tile.grid_dim x
  %gy = tile.grid_dim y
  %c8 = arith.constant 8 : index
  %pid = affine.apply affine_map<(x, y)[w] -> (y * w + x)>(%bx, %by)[%gx]
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %rows = arith.minui %left, %c8 : index
  %inner = arith.remui %pid, %width : index
  %row = arith.remui %inner, %rows : index
  %mt = arith.addi %first, %row : index
  %nt = arith.divui %inner, %rows : index
  %m0 = affine.apply affine_map<(b) -> (b * 128)>(%mt)
  %n0 = affine.apply affine_map<(b) -> (b * 256)>(%nt)
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %kt step %c1 stages 4 rolled {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xbf16> to memref<128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xbf16> to memref<64x256xbf16, #gpu.address_space<workgroup>>
    // CHECK: tile.gemm {{.*}}lowering = #tile.gemm_lowering<wgmma>
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<64x256xbf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  tile.copy %acc to %C[%m0, %n0] : memref<128x256xf32, #tile.fragment> to memref<?x?xbf16>
} grid_size {
^bb0(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %C, %c0 : memref<?x?xbf16>
  %N = memref.dim %C, %c1 : memref<?x?xbf16>
  %gx = arith.ceildivui %N, %c256 : index
  %gy = arith.ceildivui %M, %c128 : index
  tile.yield %gx, %gy : index, index
}

// The references, written once for the GEMM examples, are in reference.mlir.
func.func private @gemm_f16_reference(memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
func.func private @gemm_bf16_reference(memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>)
    attributes {tile.defined_in = "reference.mlir"}
