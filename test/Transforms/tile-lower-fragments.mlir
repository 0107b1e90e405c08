// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments,canonicalize,cse))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments{gemm-lowering=scalar},canonicalize,cse))' | FileCheck %s --check-prefix=SCALAR
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments{chip=sm_80},canonicalize,cse))' | FileCheck %s --check-prefix=SM80

// One warp, one m16n8k16 tile. The accumulator becomes the thread's 4
// registers (2 runs of 2 contiguous columns); A comes by ldmatrix.x4, B
// (16x8, stored KxN) by ldmatrix.x2.trans, one nvvm.mma.sync from zero
// (clear); the f32 registers are rounded to f16 and each run of 2 is copied
// to its row g and g + 8 of C, columns 2 (lane mod 4).
// CHECK-LABEL: tile.kernel @one_mma
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<2x2xf32>
// CHECK: %[[OUT:.+]] = tile.alloc_local : memref<2x2xf16>
// CHECK: %[[A:.+]] = nvgpu.ldmatrix %{{.+}}[%{{.+}}, %{{.+}}] {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[B:.+]] = nvgpu.ldmatrix %{{.+}}[%{{.+}}, %{{.+}}] {numTiles = 2 : i32, tile.share_swizzle_rows, transpose = true} : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: %[[D:.+]] = nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%cst, %cst, %cst, %cst]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-COUNT-4: llvm.extractvalue %[[D]]
// CHECK: arith.truncf
// CHECK: %[[ROW:.+]] = affine.apply #{{.+}}()[%[[TX]]]
// CHECK: %[[COL:.+]] = affine.apply #{{.+}}()[%[[TX]]]
// CHECK: tile.copy %[[OUT]][%c0, %c0] to %{{.+}}[%[[ROW]], %[[COL]]] shape [1, 2] : memref<2x2xf16> to memref<16x8xf16>
// CHECK: %[[ROW8:.+]] = affine.apply #{{.+}}()[%[[TX]]]
// CHECK: tile.copy %[[OUT]][%c1, %c0] to %{{.+}}[%[[ROW8]], %[[COL]]] shape [1, 2] : memref<2x2xf16> to memref<16x8xf16>
// CHECK-NOT: tile.alloc_fragment
// The scalar lowering: per register, an FMA loop over K reading A and B
// from shared memory, at the register's coordinates.
// SCALAR-LABEL: tile.kernel @one_mma
// SCALAR-NOT: nvvm.mma.sync
// SCALAR-COUNT-4: scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args
// SCALAR-NOT: scf.for
tile.kernel @one_mma(%C: memref<16x8xf16>) grid [1] threads [32] {
  %As = tile.alloc_shared {swizzle = 0} : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared {swizzle = 0} : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
  tile.copy %acc to %C : memref<16x8xf32, #tile.fragment> to memref<16x8xf16>
}

// -----

// Transposed operands swap ldmatrix's .trans: A stored KxM is read with it,
// B stored NxK without; two n8 tiles of B come from one ldmatrix.x4.
// bf16 registers go to mma.sync as i32.
// CHECK-LABEL: tile.kernel @transposed_bf16
// SCALAR-LABEL: tile.kernel @transposed_bf16
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = true} : memref<16x16xbf16
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = false} : memref<16x16xbf16
// CHECK: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-2: nvvm.mma.sync {{.*}} (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
tile.kernel @transposed_bf16(%C: memref<16x16xf32>) grid [1] threads [32] {
  %At = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %Bt = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  tile.gemm %At, %Bt, %acc {clear, transpose_a, transpose_b} : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
  tile.copy %acc to %C : memref<16x16xf32, #tile.fragment> to memref<16x16xf32>
}

// -----

// tf32: operands read with ordinary shared loads (ldmatrix moves 16-bit
// elements), rounded by cvt.rna.tf32.f32, m16n8k8. The scalar lowering
// rounds the same way with integer ops (add 0x1000, clear the 13 low bits)
// and keeps a NaN a NaN.
// The K slots of a step read K in the order {0, 3, 5, 6} (slot q) and
// {1, 2, 4, 7} (slot q + 4), the same for A and B: the loads of both are
// then free of bank conflicts in the 128-byte-swizzled tiles.
// CHECK-LABEL: tile.kernel @tf32
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %{{.+}} : index
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %[[C4]] : index
// CHECK: %[[ROW:.+]] = arith.addi %{{.+}}, %[[G]] : index
// CHECK: %[[Q:.+]] = arith.remui %[[LANE]], %[[C4]] : index
// CHECK: %[[HALFQ:.+]] = arith.divui %[[Q]], %[[C2]] : index
// CHECK: %[[GRAY:.+]] = arith.xori %[[Q]], %[[HALFQ]] : index
// CHECK: %[[PARITY:.+]] = arith.andi %[[GRAY]], %[[C1]] : index
// CHECK: %[[TWOQ:.+]] = arith.muli %[[Q]], %[[C2]] : index
// CHECK: %[[KLOW:.+]] = arith.addi %[[TWOQ]], %[[PARITY]] : index
// CHECK: %[[KHIGH:.+]] = arith.xori %[[KLOW]], %[[C1]] : index
// CHECK: memref.load %[[AS:.+]][%[[ROW]], %[[KLOW]]] : memref<16x8xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rn>}
// CHECK: %[[ROW8:.+]] = arith.addi %[[ROW]], %[[C8]] : index
// CHECK: memref.load %[[AS]][%[[ROW8]], %[[KLOW]]]
// CHECK: memref.load %[[AS]][%[[ROW]], %[[KHIGH]]]
// CHECK: memref.load %[[AS]][%[[ROW8]], %[[KHIGH]]]
// CHECK: memref.load %[[BS:.+]][%[[KLOW]], %[[G]]] : memref<8x8xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[BS]][%[[KHIGH]], %[[G]]]
// CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>
// Rounded to nearest, ties to even: bits + 0xfff + bit 13, the low 13 bits
// cleared, a NaN kept; in integer operations where no instruction does it
// (the scalar lowering; mma.sync before sm_90, which has cvt.rna only).
// SCALAR-LABEL: tile.kernel @tf32
// SCALAR-DAG: %[[C13:.+]] = arith.constant 13 : i32
// SCALAR-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// SCALAR-DAG: %[[HALF:.+]] = arith.constant 4095 : i32
// SCALAR-DAG: %[[MASK:.+]] = arith.constant -8192 : i32
// SCALAR: %[[BITS:.+]] = arith.bitcast %{{.+}} : f32 to i32
// SCALAR: %[[SHIFTED:.+]] = arith.shrui %[[BITS]], %[[C13]] : i32
// SCALAR: %[[ODD:.+]] = arith.andi %[[SHIFTED]], %[[ONE]] : i32
// SCALAR: %[[UP:.+]] = arith.addi %[[BITS]], %[[HALF]] : i32
// SCALAR: %[[SUM:.+]] = arith.addi %[[UP]], %[[ODD]] : i32
// SCALAR: arith.andi %[[SUM]], %[[MASK]] : i32
// SCALAR: arith.cmpf uno
// SCALAR: arith.select
// SM80-LABEL: tile.kernel @tf32
// SM80-NOT: nvvm.convert.float.to.tf32
// SM80: arith.addi %{{.+}}, %{{.+}} : i32
// SM80: arith.andi %{{.+}}, %{{.+}} : i32
// SM80: arith.cmpf uno
// SM80: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
tile.kernel @tf32(%C: memref<16x8xf32>) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x8xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<8x8xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x8xf32, #gpu.address_space<workgroup>>, memref<8x8xf32, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
  tile.copy %acc to %C : memref<16x8xf32, #tile.fragment> to memref<16x8xf32>
}

// -----

// An f16 accumulator: the f16 form of m16n8k16, c0 c1 and c2 c3 packed in
// vector<2xf16> registers on the way in and out.
// CHECK-LABEL: tile.kernel @f16_accumulator
// CHECK: %[[C01:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK: %[[C23:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK: %[[D:.+]] = nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%[[C01]], %[[C23]]] {{.*}} -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK: %[[D01:.+]] = llvm.extractvalue %[[D]][0]
// CHECK: vector.extract %[[D01]][0]
// SCALAR-LABEL: tile.kernel @f16_accumulator
// SCALAR-COUNT-4: scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args(%{{.+}} = %{{.+}}) -> (f16)
tile.kernel @f16_accumulator(%C: memref<16x8xf16>) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf16, #tile.fragment>
  tile.clear %acc : memref<16x8xf16, #tile.fragment>
  tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #tile.fragment>
  tile.copy %acc to %C : memref<16x8xf16, #tile.fragment> to memref<16x8xf16>
}

// -----

// A fragment A operand (P = f16(A B), then P D): no ldmatrix for it, its
// registers are the mma's A registers, paired into vector<2xf16>. The
// first product loads A by ldmatrix.x4 and two B pairs; the second only D.
// The scalar lowering fetches P's elements from the lanes of the quad that
// hold them, each of the thread's two rows of P once (a loop of K shuffles
// into a local [rows, K] buffer), and every register of O in a row reads
// that row's copy: 2 shuffle loops, not one per register of O (8).
// CHECK-LABEL: tile.kernel @fragment_a
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = true}
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK: arith.truncf
// CHECK: %[[A0:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK: %[[A1:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK: %[[A2:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK: %[[A3:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf16>
// CHECK-NOT: {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, tile.share_swizzle_rows, transpose = true}
// CHECK-COUNT-2: nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]]
// SCALAR-LABEL: tile.kernel @fragment_a
// SCALAR: %[[ROWS:.+]] = tile.alloc_local : memref<2x16xf32>
// SCALAR: gpu.shuffle idx
// SCALAR-NEXT: memref.store %{{.+}}, %[[ROWS]][%c0, %{{.+}}] : memref<2x16xf32>
// SCALAR: gpu.shuffle idx
// SCALAR-NEXT: memref.store %{{.+}}, %[[ROWS]][%c1, %{{.+}}] : memref<2x16xf32>
// SCALAR-NOT: gpu.shuffle
// SCALAR: memref.load %[[ROWS]][%c0, %{{.+}}] : memref<2x16xf32>
tile.kernel @fragment_a(%E: memref<16x16xf32>) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Ds = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<16x16xf16, #tile.fragment>
  %O = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  tile.gemm %As, %Bs, %S {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
  tile.copy %S to %P : memref<16x16xf32, #tile.fragment> to memref<16x16xf16, #tile.fragment>
  tile.gemm %P, %Ds, %O {clear} : memref<16x16xf16, #tile.fragment>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
  tile.copy %O to %E : memref<16x16xf32, #tile.fragment> to memref<16x16xf32>
}

// -----

// tile.for_each_owned: one copy of the body per register of the thread, the
// register's number a constant, its coordinates the layout's (element
// (i, j) is register i of thread j here).
// CHECK-LABEL: tile.kernel @for_each_owned
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK: %[[REGS:.+]] = tile.alloc_local : memref<4x1xf32>
// CHECK: memref.load %[[REGS]][%c0, %c0]
// CHECK: memref.store %{{.+}}, %{{.+}}[%c0, %[[TX]]] : memref<4x32xf32>
// CHECK: memref.load %[[REGS]][%c1, %c0]
// CHECK: memref.store %{{.+}}, %{{.+}}[%c1, %[[TX]]] : memref<4x32xf32>
// CHECK: memref.load %[[REGS]][%c3, %c0]
// CHECK: memref.store %{{.+}}, %{{.+}}[%c3, %[[TX]]] : memref<4x32xf32>
// CHECK-NOT: tile.for_each_owned
tile.kernel @for_each_owned(%Y: memref<4x32xf32>) grid [1] threads [32] {
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4, 32], threads = 32, registers = 4, map = (d0, d1) -> (d1, d0)>} : memref<4x32xf32, #tile.fragment>
  tile.for_each_owned %f (%r, %i, %j) : memref<4x32xf32, #tile.fragment> {
    %x = memref.load %f[%i, %j] : memref<4x32xf32, #tile.fragment>
    memref.store %x, %Y[%r, %j] : memref<4x32xf32>
  }
}

// -----

// tile.parallel over a fragment: one copy of the body per register (here a
// blocked 8x32 fragment over 32 threads: 8 registers), at the register's
// coordinates; the fragment accesses become register accesses; fill and
// clear write every register.
// CHECK-LABEL: tile.kernel @parallel_scale
// CHECK: %[[F:.+]] = tile.alloc_local : memref<2x4xf32>
// CHECK: tile.copy %{{.+}}[%{{.+}}, %{{.+}}] to %[[F]][%c0, %c0] shape [1, 4]
// CHECK: tile.copy %{{.+}}[%{{.+}}, %{{.+}}] to %[[F]][%c1, %c0] shape [1, 4]
// CHECK-COUNT-8: arith.mulf
// CHECK-NOT: tile.parallel
tile.kernel @parallel_scale(%A: memref<8x32xf32>, %s: f32) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  tile.copy %A to %f : memref<8x32xf32> to memref<8x32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [8, 32] {
    %v = memref.load %f[%i, %j] : memref<8x32xf32, #tile.fragment>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %f[%i, %j] : memref<8x32xf32, #tile.fragment>
  }
  tile.copy %f to %A : memref<8x32xf32, #tile.fragment> to memref<8x32xf32>
}

// -----

// A row vector broadcast over the rows of a block (a layer norm's weight):
// its layout, inferred from the rows', is replicated across the four warps,
// and each thread holds its 16 columns once, in runs of 4. It keeps one
// register per element, so it loads in 16-byte runs as the rows do (it
// went element by element, each load under its own bounds check), and is
// written out by the first warp only, in the same runs.
// CHECK-LABEL: tile.kernel @broadcast_row_vector
// CHECK: %[[W:.+]] = tile.alloc_local : memref<16xf32>
// CHECK-COUNT-4: tile.copy %{{.+}}[%{{.+}}] to %[[W]][%{{.+}}] shape [4] : memref<512xf32> to memref<16xf32>
// CHECK-NOT: to %[[W]]
// CHECK: %[[BITS:.+]] = arith.andi %{{.+}}, %c96 : index
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[BITS]], %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-4: tile.copy %[[W]][%{{.+}}] to %{{.+}}[%{{.+}}] shape [4] : memref<16xf32> to memref<512xf32>
// CHECK-NEXT: }
tile.kernel @broadcast_row_vector(%X: memref<4x512xf32>, %W: memref<512xf32>,
                                  %Y: memref<4x512xf32>, %V: memref<512xf32>)
    grid [1] threads [128] {
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 512], threads = 128, registers = 16, map = (d0, d1) -> (d0 floordiv 32, (d1 floordiv 4) * 128 + (d0 mod 32) * 4 + d1 mod 4)>} : memref<4x512xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<512xf32, #tile.fragment>
  tile.copy %X to %x : memref<4x512xf32> to memref<4x512xf32, #tile.fragment>
  tile.copy %W to %w : memref<512xf32> to memref<512xf32, #tile.fragment>
  tile.parallel (%i, %j) in [4, 512] {
    %v = memref.load %x[%i, %j] : memref<4x512xf32, #tile.fragment>
    %s = memref.load %w[%j] : memref<512xf32, #tile.fragment>
    %p = arith.mulf %v, %s : f32
    memref.store %p, %x[%i, %j] : memref<4x512xf32, #tile.fragment>
  }
  tile.copy %x to %Y : memref<4x512xf32, #tile.fragment> to memref<4x512xf32>
  tile.copy %w to %V : memref<512xf32, #tile.fragment> to memref<512xf32>
}

// -----

// CHECK-LABEL: tile.kernel @fill
// CHECK: %[[F:.+]] = tile.alloc_local : memref<2x4xf32>
// CHECK: tile.fill %[[F]], %{{.+}} : memref<2x4xf32>
tile.kernel @fill(%A: memref<8x32xf32>, %x: f32) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  tile.fill %f, %x : memref<8x32xf32, #tile.fragment>
  tile.copy %f to %A : memref<8x32xf32, #tile.fragment> to memref<8x32xf32>
}

// -----

// f16 and bf16 have one width: a fragment of one copied to memory of the
// other converts through f32.
// CHECK-LABEL: tile.kernel @f16_to_bf16
// CHECK: %[[X:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.truncf %[[X]] : f32 to bf16
tile.kernel @f16_to_bf16(%A: memref<8x32xf16>, %B: memref<8x32xbf16>) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf16, #tile.fragment>
  tile.copy %A to %f : memref<8x32xf16> to memref<8x32xf16, #tile.fragment>
  tile.copy %f to %B : memref<8x32xf16, #tile.fragment> to memref<8x32xbf16>
}

// -----

// A copy out to global memory of an accumulator whose lanes hold 2
// columns of every 8: the four lanes of a quad exchange their runs of four
// 8-column tiles (xor shuffles of the f16 pairs as i32, lane bits 1 then
// 2), so each writes 8 consecutive columns (16 bytes) of its row, at
// column 8 * (lane mod 4), once per row half. Each pair of f32 registers
// converts to f16 as one vector (one cvt.rn.f16x2.f32), with no per-thread
// buffer of f16 registers, and each run of 8 is one vector store into the
// buffer the copy out reads.
// CHECK: #[[COLMAP:.+]] = affine_map<()[s0] -> (s0 * 8 - (s0 floordiv 4) * 32)>
// CHECK-LABEL: tile.kernel @copy_out_exchanged
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK-NOT: tile.alloc_local : memref<{{.*}}xf16>
// CHECK: %[[WIDE:.+]] = tile.alloc_local : memref<2x8xf16>
// CHECK-NOT: tile.alloc_local : memref<{{.*}}xf16>
// CHECK: %[[PAIR:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK-NEXT: %[[HALVES:.+]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xf16>
// CHECK-NEXT: vector.bitcast %[[HALVES]] : vector<2xf16> to vector<1xi32>
// CHECK-COUNT-2: gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : i32
// CHECK-COUNT-2: gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : i32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[WORDS:.+]] = vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK-NEXT: %[[VEC:.+]] = vector.bitcast %[[WORDS]] : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: vector.store %[[VEC]], %[[WIDE]][%c0, %c0] : memref<2x8xf16>, vector<8xf16>
// CHECK-NOT: memref.store
// CHECK: %[[ROW:.+]] = affine.apply #{{.+}}()[%[[TX]]]
// CHECK-NEXT: %[[COL:.+]] = affine.apply #[[COLMAP]]()[%[[TX]]]
// CHECK: tile.copy %[[WIDE]][%c0, %c0] to %{{.+}}[%[[ROW]], %[[COL]]] shape [1, 8] : memref<2x8xf16> to memref<?x?xf16>
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: tile.copy %[[WIDE]][%c1, %c0] to %{{.+}}[%{{.+}}, %[[COL]]] shape [1, 8] : memref<2x8xf16> to memref<?x?xf16>
// CHECK-NOT: tile.copy
// A copy into shared memory keeps the runs of 2 (no shuffles), and so
// does one to rows of unknown length (no tile.multiple_of): the runs of 8
// would not be known to be 16-byte aligned, so they would not be vector
// stores either.
// CHECK-LABEL: tile.kernel @copy_to_shared_not_exchanged
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-8: tile.copy {{.*}} shape [1, 2]
// CHECK-LABEL: tile.kernel @copy_out_unaligned_not_exchanged
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-8: tile.copy {{.*}} shape [1, 2]
tile.kernel @copy_out_exchanged(%C: memref<?x?xf16> {tile.multiple_of = 8}) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x32xf32, #tile.fragment> to memref<?x?xf16>
}

tile.kernel @copy_to_shared_not_exchanged(%C: memref<?x?xf16>) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %Cs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf32, #tile.fragment>
  tile.copy %acc to %Cs : memref<16x32xf32, #tile.fragment> to memref<16x32xf16, #gpu.address_space<workgroup>>
}

tile.kernel @copy_out_unaligned_not_exchanged(%C: memref<?x?xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x32xf32, #tile.fragment> to memref<?x?xf16>
}
