// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.gemm_f16.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// mma.sync and ldmatrix are sm_80 instructions: the same kernels for an A100.
// RUN: tile-opt %s --tile-to-ptx='chip=sm_80 ptx-output=%t80.ptx' -o /dev/null
// RUN: %if ptxas %{ %ptxas-each %t80 sm_80 %}
// GPU-SUITE: --kernel gemm_f16 --shape A=1000x600 --shape B=600x520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_f16 --shape A=1024x1024 --shape B=1024x1024 --shape C=1024x1024 --check --check-repeat 20
// GPU-SUITE: --kernel gemm_f16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// GPU-SUITE: --kernel gemm_bf16 --shape A=1000x600 --shape B=600x520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_bf16 --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// CPU-SUITE: --kernel gemm_f16 --shape A=200x72 --shape B=72x136 --shape C=200x136 --check
// CPU-SUITE: --kernel gemm_bf16 --shape A=128x64 --shape B=64x128 --shape C=128x128 --check

// C = A B on tensor cores, f16 or bf16 inputs, f32 accumulation, any shape
// whose sizes are multiples of 8 (16-byte rows: cp.async): each block
// computes a 128 x 128 tile of C over K tiles of 32, streamed through shared
// memory by a 4-stage cp.async pipeline, rolled (one copy of the body, the
// stage chosen at run time: smaller code, faster here than unrolled).
// `tile.gemm` picks the rest: 4 warps of 64 x 64, ldmatrix from swizzled
// shared tiles (inferred: the gemm reads them) and mma.sync m16n8k16; the
// accumulator is a fragment in the mma layout, and the final copy converts
// it to the output type through a padded shared tile (16-byte global
// stores; 1.7% faster than storing the fragment directly, H100), bounds
// handled. Tiles cut by the bounds load with cp.async's zero fill (no
// branch).
// H100, 2026-11-26, 4096^3: f16 338.5 us, 406 TFLOP/s; bf16 337.4 us, 407
// (cuBLAS 181.3 / 186.9 us in the same call: 0.54x / 0.55x).
// H200, 2026-11-25, 4096^3: f16 340.5 us, 404 TFLOP/s; bf16 340.5 us (in
// the same call cuBLAS 178.7 / 188.8 us: 0.52x / 0.55x; Triton 218.6 /
// 210.4 us). Other tile shapes (docs/benchmarks.md): unrolled 382 TFLOP/s,
// 3 stages 343, 128x256 with 8 warps 337, 256x128x64 356.
// Both kernels ask for the lean LLVM pipeline (`llvm_passes = "lean"`):
// on the H200, 2026-12-03, f16 334.2 -> 329.4 us, bf16 328.8 -> 323.4 us,
// and 12% fewer compile instructions (gemm_f16 618 -> 542 M).

// CHECK-LABEL: tile.kernel @gemm_f16
tile.kernel @gemm_f16(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                      %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [?, ?] threads [128] attributes {reference = @gemm_f16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = affine.apply affine_map<(b) -> (b * 128)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 128)>(%bx)
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c32 : index
  %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %kt step %c1 stages 4 rolled {
    %k0 = affine.apply affine_map<(k) -> (k * 32)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<32x128xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.gemm
    tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
  }
  // The tile of C leaves through shared memory, so that global stores are
  // whole 16-byte rows (the accumulator layout gives a thread pairs of
  // elements 8 rows apart); rows padded by 16 bytes keep the fragment's
  // stores free of bank conflicts.
  %Cs = tile.alloc_shared : memref<128x136xf16, #gpu.address_space<workgroup>>
  %Ct = memref.subview %Cs[0, 0] [128, 128] [1, 1] : memref<128x136xf16, #gpu.address_space<workgroup>> to memref<128x128xf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
  tile.copy %acc to %Ct : memref<128x128xf32, #tile.fragment> to memref<128x128xf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
  tile.copy %Ct to %C[%m0, %n0] : memref<128x128xf16, strided<[136, 1]>, #gpu.address_space<workgroup>> to memref<?x?xf16>
} grid_size {
^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %C, %c0 : memref<?x?xf16>
  %N = memref.dim %C, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c128 : index
  tile.yield %gx, %gy : index, index
}

// PTX-LABEL: .entry gemm_f16(
// PTX: cp.async.cg.shared.global
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: st.shared.v2.b16
// PTX: bar.sync
// PTX: st.global.v4.b32

// The same for bf16.
// CHECK-LABEL: tile.kernel @gemm_bf16
tile.kernel @gemm_bf16(%A: memref<?x?xbf16> {tile.multiple_of = 8}, %B: memref<?x?xbf16> {tile.multiple_of = 8},
                       %C: memref<?x?xbf16> {tile.multiple_of = 8})
    grid [?, ?] threads [128] attributes {reference = @gemm_bf16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = affine.apply affine_map<(b) -> (b * 128)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 128)>(%bx)
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kt = arith.ceildivui %K, %c32 : index
  %As = tile.alloc_shared : memref<128x32xbf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x128xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  tile.pipelined %k = %c0 to %kt step %c1 stages 4 rolled {
    %k0 = affine.apply affine_map<(k) -> (k * 32)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xbf16> to memref<128x32xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xbf16> to memref<32x128xbf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %acc : memref<128x32xbf16, #gpu.address_space<workgroup>>, memref<32x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
  }
  // The tile of C leaves through shared memory, so that global stores are
  // whole 16-byte rows (the accumulator layout gives a thread pairs of
  // elements 8 rows apart); rows padded by 16 bytes keep the fragment's
  // stores free of bank conflicts.
  %Cs = tile.alloc_shared : memref<128x136xbf16, #gpu.address_space<workgroup>>
  %Ct = memref.subview %Cs[0, 0] [128, 128] [1, 1] : memref<128x136xbf16, #gpu.address_space<workgroup>> to memref<128x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
  tile.copy %acc to %Ct : memref<128x128xf32, #tile.fragment> to memref<128x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
  tile.copy %Ct to %C[%m0, %n0] : memref<128x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>> to memref<?x?xbf16>
} grid_size {
^bb0(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %C, %c0 : memref<?x?xbf16>
  %N = memref.dim %C, %c1 : memref<?x?xbf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c128 : index
  tile.yield %gx, %gy : index, index
}

// The references, written once for the GEMM examples, are in reference.mlir.
func.func private @gemm_f16_reference(memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
func.func private @gemm_bf16_reference(memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>)
    attributes {tile.defined_in = "reference.mlir"}
