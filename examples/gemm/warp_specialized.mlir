// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.gemm_f16_ws.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.gemm_f16_ws.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t.gemm_bias_relu_ws.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel gemm_f16_ws --shape A=1000x600 --shape B=600x520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_f16_ws --shape A=136x72 --shape B=72x1032 --shape C=136x1032 --check
// GPU-SUITE: --kernel gemm_f16_ws --shape A=1024x1024 --shape B=1024x1024 --shape C=1024x1024 --check --check-repeat 100
// GPU-SUITE: --kernel gemm_f16_ws --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// GPU-SUITE: --kernel gemm_bf16_ws --shape A=2056x256 --shape B=256x4104 --shape C=2056x4104 --check
// GPU-SUITE: --kernel gemm_bias_relu_ws --shape A=1000x600 --shape B=600x520 --shape bias=520 --shape C=1000x520 --check
// GPU-SUITE: --kernel gemm_bf16_ws --shape A=4096x4096 --shape B=4096x4096 --shape C=4096x4096 --bench --flops 137438953472
// CPU-SUITE: --kernel gemm_f16_ws --shape A=200x136 --shape B=136x264 --shape C=200x264 --check
// CPU-SUITE: --kernel gemm_bf16_ws --shape A=136x64 --shape B=64x520 --shape C=136x520 --check
// CPU-SUITE: --kernel gemm_bias_relu_ws --shape A=136x72 --shape B=72x264 --shape bias=264 --shape C=136x264 --check

// C = A B on Hopper's warp-group tensor cores, warp-specialized: of the
// block's three warp groups, the first two consume (each computes 64 rows
// of the 128 x 256 tile of C with wgmma) and the third produces (its first
// thread asks TMA for the K tiles of A and B). They meet only through the
// four stages of the `tiles` and the stages' mbarriers, which the lowering
// creates: the producer waits until a stage is empty, the consumers until
// it is full. No block barrier runs in the loop. setmaxnreg gives the
// consumers 232 registers (the accumulator takes 128) and the producer 40.
// The consumers leave each K tile's MMAs in flight while they wait for the
// next tile, and release a stage once the MMAs reading it are retired.
// The accumulator lives in the consumers' threads, the block's first 256,
// so the epilogue copy after the pipeline is that of gemm/wgmma.mlir.
// On the CPU target the roles run as fibers and the copies are plain.
// H100, 2026-11-27, with the copy out in 16-byte stores (the lanes
// exchange their pairs of columns): f16 4096^3 191.9 us, 716 TFLOP/s
// (cuBLAS 183.4 us in the same call: 0.96x), bf16 187.7 (1.00x); 8192^3
// f16 1530 us (1.09x), bf16 1518 (1.02x). In 4-byte stores the same call
// took 212.9 / 208.1 us at 4096^3. docs/benchmarks.md.
// The three kernels ask for the lean LLVM pipeline (`llvm_passes =
// "lean"`): the same speed as O3 on the H200, 2026-12-03 (gemm_f16_ws 191.8
// / 192.1 us, bf16 185.8 / 186.0, bias + ReLU 196.4 / 196.2), 11-14% fewer
// compile instructions (gemm_f16_ws 438 -> 377 M).

// CHECK-LABEL: tile.kernel @gemm_f16_ws
tile.kernel @gemm_f16_ws(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                      %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [?, ?] threads [384] attributes {reference = @gemm_f16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // Blocks in groups of 8 tile rows (Triton's GROUP_SIZE_M), as in
  // gemm/wgmma.mlir.
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
  // CHECK: tile.warp_specialize {{.*}} stages 4 tiles(
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
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

// The lowered f16 kernel: the register count at entry; the producer's
// setmaxnreg.dec, its wait for an empty stage and the TMA copies completing
// on the full one; the consumers' setmaxnreg.inc, their wait for a full
// stage, the MMAs left in flight (wait_group 1) and the late release of
// the previous stage; both back to the count at entry. No bar.sync in
// either role's loop.
// PTX-LABEL: .entry gemm_f16_ws(
// PTX: .maxnreg 168
// PTX: mbarrier.init.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-NOT: bar.sync
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-NOT: bar.sync
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-NOT: bar.sync
// PTX: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: bar.sync
// PTX: setmaxnreg.inc.sync.aligned.u32 168;
// PTX-NOT: bar.sync
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-NOT: bar.sync
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-NOT: bar.sync
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX-NOT: bar.sync
// PTX: wgmma.commit_group.sync.aligned
// PTX-NOT: bar.sync
// PTX: wgmma.wait_group.sync.aligned 1
// PTX-NOT: bar.sync
// PTX: mbarrier.arrive.shared.b64
// PTX-NOT: bar.sync
// PTX: wgmma.wait_group.sync.aligned 0
// PTX-NOT: bar.sync
// PTX: setmaxnreg.dec.sync.aligned.u32 168;
// PTX: bar.sync
// The copy out, the TMA-store epilogue: 64 columns at a time, the warps
// store their 8x8 blocks of the accumulator into a 128-byte-swizzled
// shared tile (stmatrix), fence them for the async proxy and meet at named
// barrier 1 (the consumer role's 256 threads); the first thread stores the
// tile with TMA, which clips it at the edges of C.
// PTX: bar.sync 1, 256;
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: fence.proxy.async.shared::cta;
// PTX: bar.sync 1, 256;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX-NOT: shfl.sync
// PTX-NOT: st.global
// PTX: cp.async.bulk.wait_group.read 0;
// ptxas honours setmaxnreg and does not serialize the wgmmas.
// PTXAS-NOT: setmaxnreg{{.*}} ignored
// PTXAS-NOT: C75{{(15|11|20)}}
// PTXAS: Compiling entry function 'gemm_f16_ws'
// PTXAS-NOT: setmaxnreg{{.*}} ignored
// PTXAS-NOT: C75{{(15|11|20)}}
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// The same for bf16.
// CHECK-LABEL: tile.kernel @gemm_bf16_ws
tile.kernel @gemm_bf16_ws(%A: memref<?x?xbf16> {tile.multiple_of = 8}, %B: memref<?x?xbf16> {tile.multiple_of = 8},
                      %C: memref<?x?xbf16> {tile.multiple_of = 8})
    grid [?, ?] threads [384] attributes {reference = @gemm_bf16_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // Blocks in groups of 8 tile rows (Triton's GROUP_SIZE_M), as in
  // gemm/wgmma.mlir.
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
  // CHECK: tile.warp_specialize {{.*}} stages 4 tiles(
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xbf16, #gpu.address_space<workgroup>>,
                       memref<64x256xbf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xbf16> to memref<128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xbf16> to memref<64x256xbf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
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

// With a fused epilogue (C = relu(A B + bias), the bias broadcast along
// rows, as gemm/epilogue.mlir): the `tile.parallel` over the accumulator
// and the copy out move into the consumer's role, after its loop, where
// its 232 registers hold the accumulator, the bias values and the result
// (after the op, in the 168 at entry, ptxas spilled 408 bytes; now none).
// Nothing runs after the op then, so neither role sets its register count
// back (as in CUTLASS's kernels): the producer's threads end with their 40.
// The block's 256 bias values are staged in shared memory before the op:
// only the consumer reads them, so the producer loads them by TMA ahead of
// its loop (a resident tile, as attention's Q), and the epilogue reads
// pairs of them (ld.shared.v2.b16) with no bounds checks: columns past N
// read TMA's zeros, and the copy out drops them.
// H100, 2026-11-27: 4096^3 in 208.0 us, 661 TFLOP/s with 16-byte stores
// out (225.3 with 4-byte ones; the GEMM alone 192.5), before the TMA-store
// epilogue, which the copy out in the role uses too.
// EPILOGUE: setmaxnreg.dec.sync.aligned.u32 40;
// EPILOGUE-NOT: setmaxnreg
// EPILOGUE: cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// EPILOGUE: setmaxnreg.inc.sync.aligned.u32 232;
// EPILOGUE: wgmma.wait_group.sync.aligned 0;
// EPILOGUE: ld.shared.v2.b16
// EPILOGUE: stmatrix.sync.aligned.m8n8.x4.shared.b16
// EPILOGUE: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// EPILOGUE-NOT: setmaxnreg
// EPILOGUE-NOT: ld.global
// CHECK-LABEL: tile.kernel @gemm_bias_relu_ws
tile.kernel @gemm_bias_relu_ws(%A: memref<?x?xf16> {tile.multiple_of = 8}, %B: memref<?x?xf16> {tile.multiple_of = 8},
                               %bias: memref<?xf16> {tile.multiple_of = 8},
                               %C: memref<?x?xf16> {tile.multiple_of = 8})
    grid [?, ?] threads [384] attributes {reference = @gemm_bias_relu_reference, llvm_passes = "lean"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = affine.apply affine_map<(b) -> (b * 128)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 256)>(%bx)
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %kt = arith.ceildivui %K, %c64 : index
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %bs = tile.alloc_shared : memref<256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  %out = tile.alloc_fragment : memref<128x256xf16, #tile.fragment>
  tile.copy %bias[%n0] to %bs : memref<?xf16> to memref<256xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x256xf32, #tile.fragment>
  tile.warp_specialize %c0 to %kt step %c1 stages 4
      tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                       memref<64x256xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    %k0 = affine.apply affine_map<(k) -> (k * 64)>(%k)
    tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
  }
  // CHECK: tile.parallel
  tile.parallel (%i, %j) in [128, 256] {
    %v = memref.load %acc[%i, %j] : memref<128x256xf32, #tile.fragment>
    %b = memref.load %bs[%j] : memref<256xf16, #gpu.address_space<workgroup>>
    %bf = arith.extf %b : f16 to f32
    %sum = arith.addf %v, %bf : f32
    %r = arith.maximumf %sum, %zero : f32
    %h = arith.truncf %r : f32 to f16
    memref.store %h, %out[%i, %j] : memref<128x256xf16, #tile.fragment>
  }
  tile.copy %out to %C[%m0, %n0] : memref<128x256xf16, #tile.fragment> to memref<?x?xf16>
} grid_size {
^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<?xf16>, %C: memref<?x?xf16>):
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

// The references, written once for the GEMM examples, are in reference.mlir.
func.func private @gemm_f16_reference(memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
func.func private @gemm_bf16_reference(memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>)
    attributes {tile.defined_in = "reference.mlir"}
func.func private @gemm_bias_relu_reference(memref<?x?xf16>, memref<?x?xf16>, memref<?xf16>, memref<?x?xf16>)
    attributes {tile.defined_in = "epilogue.mlir"}
