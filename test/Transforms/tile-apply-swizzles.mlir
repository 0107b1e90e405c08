// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-apply-swizzles,cse))' | FileCheck %s

// Rows of 256 bytes (128 f16) are cut into panels of 64 columns (128
// bytes), each stored whole (64 rows) before the next, as TMA writes a
// tile box by box and wgmma reads it: linear = (j / 64) * 4096 + i * 64 +
// j mod 64, then the 16-byte chunk moves within its line, linear xor
// ((linear / 64 mod 8) * 8), and the position is (s / 128, s mod 128).
// The constants are powers of two: shifts and masks, which LLVM need not
// rewrite. Every access kind is rewritten: scalar and vector loads and
// stores, ldmatrix, cp.async. (cse merges the four identical index
// computations.)
// CHECK-LABEL: tile.kernel @wide_rows
// CHECK: %[[BUF:.+]] = tile.alloc_shared
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[PANEL:.+]] = arith.shrui %[[COL:.+]], %[[C6]]
// CHECK: %[[C63:.+]] = arith.constant 63 : index
// CHECK: %[[INPANEL:.+]] = arith.andi %[[COL]], %[[C63]]
// CHECK: %[[ROWSTART:.+]] = arith.shli %[[ROW:.+]], %[[C6]]
// CHECK: %[[C12:.+]] = arith.constant 12 : index
// CHECK: %[[PANELSTART:.+]] = arith.shli %[[PANEL]], %[[C12]]
// CHECK: %[[S:.+]] = arith.addi %[[PANELSTART]], %[[ROWSTART]]
// CHECK: %[[LIN:.+]] = arith.addi %[[S]], %[[INPANEL]]
// CHECK: %[[LINE:.+]] = arith.shrui %[[LIN]], %[[C6]]
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[R:.+]] = arith.andi %[[LINE]], %[[C7]]
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[X:.+]] = arith.shli %[[R]], %[[C3]]
// CHECK: %[[SW:.+]] = arith.xori %[[LIN]], %[[X]]
// CHECK: %[[I:.+]] = arith.shrui %[[SW]], %[[C7]]
// CHECK: %[[C127:.+]] = arith.constant 127 : index
// CHECK: %[[J:.+]] = arith.andi %[[SW]], %[[C127]]
// CHECK: memref.load %[[BUF]][%[[I]], %[[J]]]
// CHECK: vector.store %{{.+}}, %[[BUF]][%[[I]], %[[J]]]
// CHECK: nvgpu.ldmatrix %[[BUF]][%[[I]], %[[J]]]
// CHECK: nvgpu.device_async_copy %{{.+}}[%[[ROW]], %[[COL]]], %[[BUF]][%[[I]], %[[J]]]
tile.kernel @wide_rows(%A: memref<64x128xf16>, %i: index, %j: index) grid [1] threads [32] {
  %s = tile.alloc_shared {swizzle = 128} : memref<64x128xf16, #gpu.address_space<workgroup>>
  %v = memref.load %s[%i, %j] : memref<64x128xf16, #gpu.address_space<workgroup>>
  %w = vector.broadcast %v : f16 to vector<8xf16>
  vector.store %w, %s[%i, %j] : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<8xf16>
  %m = nvgpu.ldmatrix %s[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x128xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %e = vector.extract %m[0, 0] : f16 from vector<4x2xf16>
  memref.store %e, %A[%i, %j] : memref<64x128xf16>
  %t = nvgpu.device_async_copy %A[%i, %j], %s[%i, %j], 8 : memref<64x128xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>
}

// -----

// Rows of 128 bytes (64 f16), one per line: the row stays, the chunk
// moves within it, column xor ((row mod 8) * 8).
// CHECK-LABEL: tile.kernel @line_rows
// CHECK: %[[BUF:.+]] = tile.alloc_shared
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[R:.+]] = arith.andi %[[I:.+]], %[[C7]]
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[X:.+]] = arith.shli %[[R]], %[[C3]]
// CHECK: %[[J:.+]] = arith.xori %[[COL:.+]], %[[X]]
// CHECK: memref.store %{{.+}}, %[[BUF]][%[[I]], %[[J]]]
tile.kernel @line_rows(%i: index, %j: index, %x: f16) grid [1] threads [32] {
  %s = tile.alloc_shared {swizzle = 128} : memref<64x64xf16, #gpu.address_space<workgroup>>
  memref.store %x, %s[%i, %j] : memref<64x64xf16, #gpu.address_space<workgroup>>
}

// -----

// Rows of 64 bytes (32 f16): two rows share a 128-byte line, so the chunk
// index is taken over the line (linear index xor ((linear / 64) mod 8) *
// 8), which may move an element to the other row of its line.
// CHECK-LABEL: tile.kernel @narrow_rows
// CHECK: %[[C5:.+]] = arith.constant 5 : index
// CHECK: %[[ROWSTART:.+]] = arith.shli %[[I:.+]], %[[C5]]
// CHECK: %[[LIN:.+]] = arith.addi %[[ROWSTART]], %[[J:.+]]
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[LINE:.+]] = arith.shrui %[[LIN]], %[[C6]]
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[R:.+]] = arith.andi %[[LINE]], %[[C7]]
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[X:.+]] = arith.shli %[[R]], %[[C3]]
// CHECK: %[[SW:.+]] = arith.xori %[[LIN]], %[[X]]
// CHECK: %[[I2:.+]] = arith.shrui %[[SW]], %[[C5]]
// CHECK: %[[C31:.+]] = arith.constant 31 : index
// CHECK: %[[J2:.+]] = arith.andi %[[SW]], %[[C31]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I2]], %[[J2]]]
tile.kernel @narrow_rows(%i: index, %j: index, %x: f16) grid [1] threads [32] {
  %s = tile.alloc_shared {swizzle = 128} : memref<64x32xf16, #gpu.address_space<workgroup>>
  memref.store %x, %s[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
}

// -----

// A buffer without swizzle is left alone.
// CHECK-LABEL: tile.kernel @plain
// CHECK-NOT: arith.xori
tile.kernel @plain(%i: index, %j: index, %x: f16) grid [1] threads [32] {
  %s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  memref.store %x, %s[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @view(%i: index) grid [1] threads [32] {
  %s = tile.alloc_shared {swizzle = 128} : memref<64x32xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'memref.subview' uses a swizzled shared buffer in a way whose addresses cannot be swizzled (only loads, stores, vector loads and stores, cp.async, ldmatrix and wgmma descriptors of the buffer itself can); give the buffer swizzle = 0}}
  %v = memref.subview %s[0, 0] [32, 32] [1, 1] : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<32x32xf16, strided<[32, 1]>, #gpu.address_space<workgroup>>
}

// -----

// The stage of a swizzled buffer in a rolled pipeline: a view marked
// `tile.swizzle` (tile-software-pipeline), swizzled from the stage's start
// like the buffer itself; the raw allocation's other uses are untouched.
// CHECK-LABEL: tile.kernel @swizzled_stage
// CHECK: %[[V:.+]] = memref.view
// CHECK: %[[X:.+]] = arith.shli %{{.+}}, %c3 :
// CHECK: %[[SW:.+]] = arith.xori %{{.+}}, %[[X]]
// CHECK: %[[I2:.+]] = arith.shrui %[[SW]], %c7
// CHECK: %[[J2:.+]] = arith.andi %[[SW]], %c127
// CHECK: memref.store %{{.+}}, %[[V]][%[[I2]], %[[J2]]]
tile.kernel @swizzled_stage(%stage: index, %i: index, %j: index, %x: f16) grid [1] threads [32] {
  %raw = tile.alloc_shared {alignment = 128} : memref<65536xi8, #gpu.address_space<workgroup>>
  %c32768 = arith.constant 32768 : index
  %shift = arith.muli %stage, %c32768 : index
  %v = memref.view %raw[%shift][] {tile.swizzle} : memref<65536xi8, #gpu.address_space<workgroup>> to memref<128x128xf16, #gpu.address_space<workgroup>>
  memref.store %x, %v[%i, %j] : memref<128x128xf16, #gpu.address_space<workgroup>>
}

// -----

// The base address of a swizzled tile (wgmma descriptors) is not an
// access: the swizzle does not move the start.
// CHECK-LABEL: tile.kernel @descriptor_base
// CHECK: memref.extract_aligned_pointer_as_index %{{.+}} : memref<64x64xf16
tile.kernel @descriptor_base(%A: memref<1xindex>) grid [1] threads [32] {
  %s = tile.alloc_shared {swizzle = 128, alignment = 1024} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %p = memref.extract_aligned_pointer_as_index %s : memref<64x64xf16, #gpu.address_space<workgroup>> -> index
  memref.store %p, %A[%c0] : memref<1xindex>
}

// -----

// Rows q + c (q provably not negative, c a constant) of loads marked
// tile.share_swizzle_rows (a tf32 wgmma gemm's B^T registers): the pattern repeats
// every 8 lines, 8 rows of one line each here, so row q + 20 is swizzled as
// row q + 4 and moved down 16 rows, row q + 8 as row q and moved 8 rows;
// the accesses of rows q, q + 8, q + 16, ... share q's swizzle arithmetic
// (a tf32 wgmma gemm's B^T registers, one K step of 8 rows after another).
// A row whose lower bound is unknown, or a load not marked, is swizzled as
// it is.
// CHECK-LABEL: tile.kernel @shifted_rows
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[Q:.+]] = arith.remui
// CHECK: %[[BUF:.+]] = tile.alloc_shared
// CHECK: %[[R20:.+]] = arith.addi %[[Q]], %{{.+}}
// CHECK: %[[Q4:.+]] = arith.addi %[[Q]], %[[C4]]
// CHECK: arith.andi %[[Q4]]
// CHECK: %[[J4:.+]] = arith.xori %[[COL:[^,]+]], %{{.+}}
// CHECK: %[[I4:.+]] = arith.addi %[[Q4]], %[[C16]]
// CHECK: memref.load %[[BUF]][%[[I4]], %[[J4]]]
// CHECK: arith.andi %[[Q]]
// CHECK: %[[J0:.+]] = arith.xori %[[COL]], %{{.+}}
// CHECK: %[[I0:.+]] = arith.addi %[[Q]], %[[C8]]
// CHECK: memref.load %[[BUF]][%[[I0]], %[[J0]]]
// CHECK: %[[I1:.+]] = arith.addi %[[Q]], %[[C16]]
// CHECK: memref.load %[[BUF]][%[[I1]], %[[J0]]]
// CHECK: %[[K:.+]] = arith.addi %{{.+}}, %[[C8]]
// CHECK: arith.andi %[[K]]
// CHECK: memref.load %[[BUF]][%[[K]], %{{.+}}]
// CHECK: arith.andi %[[R20]]
// CHECK: memref.load %[[BUF]][%[[R20]], %{{.+}}] :
tile.kernel @shifted_rows(%j: index, %k: index, %O: memref<5xf16>) grid [1] threads [32] {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  %t = tile.thread_id x
  %q = arith.remui %t, %c4 : index
  %s = tile.alloc_shared {swizzle = 128} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %r20 = arith.addi %q, %c20 : index
  %a = memref.load %s[%r20, %j]  {tile.share_swizzle_rows} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %r8 = arith.addi %q, %c8 : index
  %b = memref.load %s[%r8, %j] {tile.share_swizzle_rows} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %r16 = arith.addi %c16, %q : index
  %c = memref.load %s[%r16, %j] {tile.share_swizzle_rows} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %k8 = arith.addi %k, %c8 : index
  %d = memref.load %s[%k8, %j] {tile.share_swizzle_rows} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %e = memref.load %s[%r20, %j] : memref<64x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  memref.store %a, %O[%c0] : memref<5xf16>
  memref.store %b, %O[%c1] : memref<5xf16>
  memref.store %c, %O[%c2] : memref<5xf16>
  memref.store %d, %O[%c3] : memref<5xf16>
  %c4i = arith.constant 4 : index
  memref.store %e, %O[%c4i] : memref<5xf16>
}
