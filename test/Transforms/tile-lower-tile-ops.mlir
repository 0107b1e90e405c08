// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-lower-tile-ops,canonicalize,cse))' -verify-diagnostics | FileCheck %s

// A copy proven in bounds (by < 16, bx < 64: rows 64 * 15 + 64 <= 1024,
// columns 32 * 63 + 32 <= 2048) has no bounds test. 64x32 f32 is 512 chunks
// of 4 elements (16 bytes): 4 per thread of 128, thread t taking chunk t of
// each round, so a row of 8 chunks goes to 8 neighbouring threads.
// CHECK-LABEL: tile.kernel @copy_in_bounds
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK: scf.for %[[ROUND:.+]] = %{{.*}} to %[[C4]] step
// CHECK:   %[[BASE:.+]] = arith.muli %[[ROUND]], %[[C128]]
// CHECK:   %[[CHUNK:.+]] = arith.addi %[[BASE]], %[[TX]]
// CHECK:   arith.remui %[[CHUNK]], %[[C8]]
// CHECK:   arith.divui %[[CHUNK]], %[[C8]]
// CHECK-NOT: scf.if
// CHECK:   tile.vectorized %[[E:.+]] = %{{.*}} to %[[C4]] step
// CHECK:     memref.load %{{.*}} : memref<1024x2048xf32>
// CHECK:     memref.store %{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>
tile.kernel @copy_in_bounds(%A: memref<1024x2048xf32>) grid [64, 16] threads [128] {
  %bx = tile.block_id x
  %by = tile.block_id y
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %m = arith.muli %by, %c64 : index
  %k = arith.muli %bx, %c32 : index
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.copy %A[%m, %k] to %As : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
}

// -----

// A dynamic source may end anywhere: each chunk is tested; a chunk that
// crosses the end is copied element by element, reading zero outside.
// CHECK-LABEL: tile.kernel @copy_bounds_checked
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[N:.+]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf16>
// CHECK: %[[FITS:.+]] = arith.cmpi ule, %{{.*}}, %[[N]]
// CHECK: %[[OK:.+]] = arith.andi %{{.*}}, %[[FITS]]
// CHECK: scf.if %[[OK]] {
// CHECK:   tile.vectorized %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     %[[V:.+]] = scf.if %{{.*}} -> (f16) {
// CHECK:       memref.load
// CHECK:     } else {
// CHECK:       scf.yield %[[ZERO]] : f16
// CHECK:     memref.store %[[V]]
tile.kernel @copy_bounds_checked(%A: memref<?xf16>) grid [4] threads [64] {
  %bx = tile.block_id x
  %c512 = arith.constant 512 : index
  %k = arith.muli %bx, %c512 : index
  %As = tile.alloc_shared : memref<512xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%k] to %As : memref<?xf16> to memref<512xf16, #gpu.address_space<workgroup>>
}

// -----

// f16 moves in chunks of 8 (16 bytes); an innermost extent of 12 allows 4.
// A tile smaller than the block is guarded by the thread index.
// CHECK-LABEL: tile.kernel @copy_chunk_widths
// CHECK: %[[TX:.+]] = tile.thread_id x
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[TX]], %{{.*}}
// CHECK: scf.if %[[IN]] {
// CHECK:   tile.vectorized %{{.*}} = %{{.*}} to %[[C4:.+]] step
// CHECK: }
tile.kernel @copy_chunk_widths(%A: memref<12x12xf16>) grid [1] threads [64] {
  %s = tile.alloc_shared : memref<12x12xf16, #gpu.address_space<workgroup>>
  tile.copy %A to %s : memref<12x12xf16> to memref<12x12xf16, #gpu.address_space<workgroup>>
}

// -----

// A copy into a per-thread buffer is done by each thread on its own: no
// thread index, a loop over all chunks.
// CHECK-LABEL: tile.kernel @copy_to_local
// CHECK-NOT: tile.thread_id
// CHECK: tile.vectorized %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:   memref.store %{{.*}} : memref<8xf16>
tile.kernel @copy_to_local(%A: memref<1024xf16>) grid [128] threads [32] {
  %bx = tile.block_id x
  %c8 = arith.constant 8 : index
  %k = arith.muli %bx, %c8 : index
  %a = tile.alloc_local : memref<8xf16>
  tile.copy %A[%k] to %a : memref<1024xf16> to memref<8xf16>
}

// -----

// A thread's own copy that may cross a bound: when the whole tile (8
// elements) is inside, its two chunks copy without tests, one after the
// other; otherwise each chunk is tested (a chunk across the end element by
// element, skipping what is outside).
// CHECK-LABEL: tile.kernel @copy_from_local_bounds_checked
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[N0:.+]] = arith.muli
// CHECK: %[[N:.+]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf32>
// CHECK-DAG: %[[START_IN:.+]] = arith.cmpi ult, %[[N0]], %[[N]]
// CHECK-DAG: %[[END:.+]] = arith.addi %[[N0]], %[[C8]]
// CHECK-DAG: %[[END_IN:.+]] = arith.cmpi ule, %[[END]], %[[N]]
// CHECK: %[[WHOLE:.+]] = arith.andi %[[START_IN]], %[[END_IN]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK-NOT: scf.if
// CHECK:   tile.vectorized
// CHECK-NOT: scf.if
// CHECK:   tile.vectorized
// CHECK: } else {
// CHECK:   scf.if
// CHECK:     tile.vectorized
// CHECK:   } else {
// CHECK:     scf.for
// CHECK:       scf.if
// CHECK:         memref.store %{{.*}} : memref<?xf32>
tile.kernel @copy_from_local_bounds_checked(%B: memref<?xf32>) grid [4] threads [64] {
  %bx = tile.block_id x
  %c8 = arith.constant 8 : index
  %n = arith.muli %bx, %c8 : index
  %y = tile.alloc_local : memref<8xf32>
  tile.clear %y : memref<8xf32>
  tile.copy %y to %B[%n] : memref<8xf32> to memref<?xf32>
}

// -----

// A register run of a fragment copied out at its owner's coordinates, as
// tile-lower-fragments writes them (the m16n8 accumulator's row and column
// of a register on 4 warps of 2x2, `mod` spelled out by simplification):
// the column is 2 (t mod 4) + 64 ((t floordiv 32) mod 2) + 56, at most 126,
// so the run of two ends inside the 128 columns and the copy has no test
// (exact ranges of power-of-two layouts, IndexAnalysis.cpp).
// CHECK-LABEL: tile.kernel @copy_at_fragment_coordinates
// CHECK-NOT: scf.if
// CHECK: tile.vectorized
// CHECK-NOT: scf.if
tile.kernel @copy_at_fragment_coordinates() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %regs = tile.alloc_local : memref<64x2xf16>
  %s = tile.alloc_shared : memref<128x136xf16, #gpu.address_space<workgroup>>
  %t = memref.subview %s[0, 0] [128, 128] [1, 1] : memref<128x136xf16, #gpu.address_space<workgroup>> to memref<128x128xf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
  %row = affine.apply affine_map<(d0) -> ((d0 floordiv 64) * 64 + (d0 mod 32) floordiv 4 + 8)>(%tx)
  %col = affine.apply affine_map<(d0) -> (d0 * 2 + (d0 floordiv 32) * 64 - ((d0 floordiv 32) floordiv 2) * 128 - (d0 floordiv 4) * 8 + 56)>(%tx)
  tile.copy %regs[%c0, %c0] to %t[%row, %col] shape [1, 2] : memref<64x2xf16> to memref<128x128xf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
}

// -----

// tile.parallel over 64x32 on 256 threads: 8 rounds, iteration (i, j) from
// the linear index, innermost fastest.
// CHECK-LABEL: tile.kernel @parallel_2d
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C8]] step
// CHECK:   %[[J:.+]] = arith.remui %[[L:.+]], %[[C32]]
// CHECK:   %[[I:.+]] = arith.divui %[[L]], %[[C32]]
// CHECK:   memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.if
tile.kernel @parallel_2d() grid [1] threads [16, 16] {
  %s = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  tile.parallel (%i, %j) in [64, 32] {
    %v = memref.load %s[%i, %j] : memref<64x32xf32, #gpu.address_space<workgroup>>
    %w = arith.addf %v, %v : f32
    memref.store %w, %s[%i, %j] : memref<64x32xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// 100 iterations on 64 threads: two rounds, the second guarded.
// CHECK-LABEL: tile.kernel @parallel_tail
// CHECK: %[[C100:.+]] = arith.constant 100 : index
// CHECK: scf.for
// CHECK:   %[[L:.+]] = arith.addi
// CHECK:   %[[IN:.+]] = arith.cmpi ult, %[[L]], %[[C100]]
// CHECK:   scf.if %[[IN]] {
// CHECK:     memref.store %{{.*}}[%[[L]]]
tile.kernel @parallel_tail(%A: memref<100xf32>) grid [1] threads [64] {
  %f = arith.constant 1.0 : f32
  tile.parallel (%i) in [100] {
    memref.store %f, %A[%i] : memref<100xf32>
  }
}

// -----

// A shared fill is spread over the block in 16-byte chunks; a local clear is
// one store per element with constant indices (the buffer stays in
// registers).
// CHECK-LABEL: tile.kernel @fills
// CHECK-DAG: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[I0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[I1:.+]] = arith.constant 1 : index
// CHECK: tile.vectorized
// CHECK:   memref.store %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %[[Z]], %{{.*}}[%[[I0]]] : memref<2xf32>
// CHECK: memref.store %[[Z]], %{{.*}}[%[[I1]]] : memref<2xf32>
tile.kernel @fills() grid [1] threads [64] {
  %f = arith.constant 2.0 : f32
  %s = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  %l = tile.alloc_local : memref<2xf32>
  tile.fill %s, %f : memref<256xf32, #gpu.address_space<workgroup>>
  tile.clear %l : memref<2xf32>
}

// -----

// A per-thread buffer larger than a thread's 255 registers lives in local
// memory whatever its indices: its clear is a loop over the elements, not one
// store each (a 1024x1024 clear used to unroll into 2^20 stores and compile for
// minutes; found by the fuzzer).
// CHECK-LABEL: tile.kernel @large_local_clear
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C4096:.+]] = arith.constant 4096 : index
// CHECK: scf.for %[[L:.+]] = %{{.*}} to %[[C4096]] step
// CHECK:   %[[J:.+]] = arith.remui %[[L]], %[[C16]]
// CHECK:   %[[I:.+]] = arith.divui %[[L]], %[[C16]]
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<256x16xf32>
// CHECK-NOT: memref.store
tile.kernel @large_local_clear() grid [1] threads [64] {
  %l = tile.alloc_local : memref<256x16xf32>
  tile.clear %l : memref<256x16xf32>
}

// -----

// Loops: serial becomes scf.for, unroll is expanded, pipelined runs serially
// for now and says so.
// CHECK-LABEL: tile.kernel @loops
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK: scf.for %[[K:.+]] = %{{.*}} to %{{.*}} step
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[K]]]
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C0]]] : memref<3xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C1]]] : memref<3xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C2]]] : memref<3xf32>
// CHECK: scf.for
// CHECK:   tile.barrier
tile.kernel @loops(%A: memref<64xf32>, %n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %l = tile.alloc_local : memref<3xf32>
  %f = arith.constant 1.0 : f32
  tile.serial %k = %c0 to %n step %c1 {
    memref.store %f, %A[%k] : memref<64xf32>
  }
  tile.unroll %i = %c0 to %c3 step %c1 {
    memref.store %f, %l[%i] : memref<3xf32>
  }
  // expected-remark @+1 {{the 2-stage loop runs as a serial loop: tile-software-pipeline did not run before this pass}}
  tile.pipelined %k = %c0 to %n step %c1 stages 2 {
    tile.barrier
  }
}

// -----

// A pipelined (asynchronous) copy of a global tile that may cross the
// source's bounds into shared memory: one cp.async per 16-byte chunk, its
// source element count 0 outside the source so that the hardware zero-fills
// it; no branch, no element-wise copy, no clamped address. The row length
// is a declared multiple of 8, so every chunk is 16-byte aligned and wholly
// inside or outside.
// CHECK-LABEL: tile.kernel @async_copy_zero_fill
// CHECK-NOT: scf.if
// CHECK: %[[ROWS:.+]] = memref.dim %{{.*}}, %c0
// CHECK: %[[ROW_IN:.+]] = arith.cmpi ult, %[[ROW:.+]], %[[ROWS]]
// CHECK: %[[COLS:.+]] = memref.dim %{{.*}}, %c1
// CHECK: %[[COL_IN:.+]] = arith.cmpi ult, %[[COL:.+]], %[[COLS]]
// CHECK: %[[INSIDE:.+]] = arith.andi %[[ROW_IN]], %[[COL_IN]]
// CHECK: %[[VALID:.+]] = arith.select %[[INSIDE]], %c8, %c0
// CHECK: nvgpu.device_async_copy %{{.*}}[%[[ROW]], %[[COL]]], %{{.*}}[{{.*}}], 8, %[[VALID]] {bypassL1}
// CHECK-NOT: memref.load
tile.kernel @async_copy_zero_fill(%A: memref<?x?xf16> {tile.multiple_of = 8}, %m: index, %k: index) grid [1] threads [128] {
  %s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %c32 = arith.constant 32 : index
  %k32 = arith.muli %k, %c32 : index
  tile.copy %A[%m, %k32] to %s {tile.async} : memref<?x?xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
}

// -----

// A 1-D source of any length: chunks are aligned (the offset is a multiple
// of 8) but may straddle the end, where the count is cut.
// CHECK-LABEL: tile.kernel @async_copy_zero_fill_partial
// CHECK: %[[SIZE:.+]] = memref.dim %{{.*}}, %c0
// CHECK: %[[LEFT:.+]] = arith.subi %[[SIZE]], %[[AT:.+]] : index
// CHECK: %[[MIN:.+]] = arith.minui %[[LEFT]], %c8
// CHECK: %[[VALID:.+]] = arith.select %{{.*}}, %[[MIN]], %c0
// CHECK: nvgpu.device_async_copy %{{.*}}[%[[AT]]], %{{.*}}[{{.*}}], 8, %[[VALID]] {bypassL1}
tile.kernel @async_copy_zero_fill_partial(%A: memref<?xf16>, %k: index) grid [1] threads [128] {
  %s = tile.alloc_shared : memref<1024xf16, #gpu.address_space<workgroup>>
  %c1024 = arith.constant 1024 : index
  %k1024 = arith.muli %k, %c1024 : index
  tile.copy %A[%k1024] to %s {tile.async} : memref<?xf16> to memref<1024xf16, #gpu.address_space<workgroup>>
}

// -----

// Without a declared multiple the chunks may be misaligned or straddle the
// row's end: the bounds-tested copy with its element-wise fallback stays.
// CHECK-LABEL: tile.kernel @async_copy_unaligned
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.if
// CHECK: tile.vectorized
tile.kernel @async_copy_unaligned(%A: memref<?x?xf16>, %m: index, %k: index) grid [1] threads [128] {
  %s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%m, %k] to %s {tile.async} : memref<?x?xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
}

// -----

// A thread's run of 2 elements stored into a global tile whose row length
// is a multiple of 8, at an even column: the run is wholly inside or wholly
// outside, so it is one test and one (vectorizable) copy, no element-wise
// fallback.
// CHECK-LABEL: tile.kernel @whole_chunk_store
// CHECK: %[[IN:.+]] = arith.andi
// CHECK-NOT: scf.if
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: tile.vectorized
// CHECK-NOT: else
tile.kernel @whole_chunk_store(%C: memref<?x?xf16> {tile.multiple_of = 8}, %i: index, %j: index) grid [1] threads [32] {
  %r = tile.alloc_local : memref<1x2xf16>
  %c2 = arith.constant 2 : index
  %j2 = arith.muli %j, %c2 : index
  tile.copy %r to %C[%i, %j2] : memref<1x2xf16> to memref<?x?xf16>
}

// -----

// A run read from a global tile that may end before it: wholly outside, it
// reads as zeros (a vectorizable store of zeros).
// CHECK-LABEL: tile.kernel @whole_chunk_load
// CHECK: scf.if
// CHECK: tile.vectorized
// CHECK: memref.load
// CHECK: } else {
// CHECK: tile.vectorized
// CHECK: memref.store %{{.*}}cst
tile.kernel @whole_chunk_load(%C: memref<?x?xf16> {tile.multiple_of = 8}, %i: index, %j: index) grid [1] threads [32] {
  %r = tile.alloc_local : memref<1x4xf16>
  %c4 = arith.constant 4 : index
  %j4 = arith.muli %j, %c4 : index
  tile.copy %C[%i, %j4] to %r : memref<?x?xf16> to memref<1x4xf16>
}

// -----

// Limits (docs/TileDialect.md): a nest of unrolled loops whose copies would
// exceed 8192 operations is an error at the outer loop. The inner loop is
// unrolled first (64 copies of 9 operations); the outer loop would then
// make 64 copies of 577.
tile.kernel @unroll_nest_too_large(%A: memref<64x64xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{unrolling 64 copies of a body of 577 operations would create more than the 8192 operations allowed for one unrolled loop}}
  tile.unroll %i = %c0 to %c64 step %c1 {
    tile.unroll %j = %c0 to %c64 step %c1 {
      %v = memref.load %A[%i, %j] : memref<64x64xf32>
      %w = arith.mulf %v, %v : f32
      %x = arith.addf %w, %v : f32
      %y = arith.mulf %x, %w : f32
      %z = arith.addf %y, %x : f32
      %u = arith.mulf %z, %y : f32
      %t = arith.addf %u, %z : f32
      memref.store %t, %A[%i, %j] : memref<64x64xf32>
    }
  }
}

// -----

// A serial loop carrying a value becomes an scf.for carrying it; an unrolled
// one becomes one copy of its body per iteration, each fed the value the
// previous copy yielded, the last one replacing the loop's result.
// CHECK-LABEL: tile.kernel @iter_args
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK:   %[[V:.+]] = memref.load %{{.*}}[%[[K]]] : memref<1024xf32>
// CHECK:   %[[NEXT:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK:   scf.yield %[[NEXT]] : f32
// CHECK: }
// CHECK: %[[L0:.+]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: %[[P0:.+]] = arith.mulf %[[SUM]], %[[L0]] : f32
// CHECK: %[[L1:.+]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: %[[P1:.+]] = arith.mulf %[[P0]], %[[L1]] : f32
// CHECK: %[[L2:.+]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: %[[P2:.+]] = arith.mulf %[[P1]], %[[L2]] : f32
// CHECK: %[[L3:.+]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: %[[P3:.+]] = arith.mulf %[[P2]], %[[L3]] : f32
// CHECK-NOT: scf.for
// CHECK: memref.store %[[P3]], %{{.*}}[%{{.*}}] : memref<1024xf32>
tile.kernel @iter_args(%A: memref<1024xf32>, %n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %l = tile.alloc_local : memref<4xf32>
  %sum = tile.serial %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %A[%k] : memref<1024xf32>
    %next = arith.addf %acc, %v : f32
    tile.yield %next : f32
  }
  %prod = tile.unroll %i = %c0 to %c4 step %c1 iter_args(%p = %sum) -> (f32) {
    %v = memref.load %l[%i] : memref<4xf32>
    %q = arith.mulf %p, %v : f32
    tile.yield %q : f32
  }
  memref.store %prod, %A[%c0] : memref<1024xf32>
}

// -----

// An unrolled loop of no iteration returns its initial value.
// CHECK-LABEL: tile.kernel @iter_args_empty
// CHECK: %[[C:.+]] = arith.constant 1.500000e+00 : f32
// CHECK: memref.store %[[C]]
tile.kernel @iter_args_empty(%A: memref<1024xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 1.5 : f32
  %r = tile.unroll %i = %c1 to %c0 step %c1 iter_args(%p = %init) -> (f32) {
    %q = arith.addf %p, %p : f32
    tile.yield %q : f32
  }
  memref.store %r, %A[%c0] : memref<1024xf32>
}
