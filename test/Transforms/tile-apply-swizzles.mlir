// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-apply-swizzles,cse))' | FileCheck %s

// Rows of 256 bytes (128 f16) are cut into panels of 64 columns (128
// bytes), each stored whole (64 rows) before the next, as TMA writes a
// tile box by box and wgmma reads it: element (i, j) is in line q = (j / 64)
// * 64 + i, its 16-byte chunk moves within the line (j mod 64 xor (q mod 8)
// * 8), and the physical position s = q * 64 + that is (s / 128, s mod
// 128) = ((j / 64) * 32 + i / 2, (i mod 2) * 64 + (j mod 64 xor (i mod 8)
// * 8)): shifts and masks, all constants being powers of two. Every access
// kind is rewritten: scalar and vector loads and stores, ldmatrix, cp.async.
// (cse merges the four identical index computations.)
// CHECK-LABEL: tile.kernel @wide_rows
// CHECK: %[[BUF:.+]] = tile.alloc_shared
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[PANEL:.+]] = arith.shrui %[[COL:.+]], %[[C6]]
// CHECK: %[[C63:.+]] = arith.constant 63 : index
// CHECK: %[[INPANEL:.+]] = arith.andi %[[COL]], %[[C63]]
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[HALF:.+]] = arith.shrui %[[ROW:.+]], %[[C1]]
// CHECK: %[[C5:.+]] = arith.constant 5 : index
// CHECK: %[[PANELROWS:.+]] = arith.shli %[[PANEL]], %[[C5]]
// CHECK: %[[I:.+]] = arith.addi %[[PANELROWS]], %[[HALF]]
// CHECK: %[[ODD:.+]] = arith.andi %[[ROW]], %[[C1]]
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[R:.+]] = arith.andi %[[ROW]], %[[C7]]
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[X:.+]] = arith.shli %[[R]], %[[C3]]
// CHECK: %[[SW:.+]] = arith.xori %[[INPANEL]], %[[X]]
// CHECK: %[[HALFSTART:.+]] = arith.shli %[[ODD]], %[[C6]]
// CHECK: %[[J:.+]] = arith.addi %[[HALFSTART]], %[[SW]]
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
// index is taken over the line: linear index (i * 32 + j) xor mask, mask =
// ((i / 2) mod 8) * 8, which may move an element to the other row of its
// line. Split at the row: i' = i xor (mask / 32), j' = j xor (mask mod 32).
// CHECK-LABEL: tile.kernel @narrow_rows
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[LINE:.+]] = arith.shrui %[[I:.+]], %[[C1]]
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[R:.+]] = arith.andi %[[LINE]], %[[C7]]
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[MASK:.+]] = arith.shli %[[R]], %[[C3]]
// CHECK: %[[C5:.+]] = arith.constant 5 : index
// CHECK: %[[ROWFLIP:.+]] = arith.shrui %[[MASK]], %[[C5]]
// CHECK: %[[I2:.+]] = arith.xori %[[I]], %[[ROWFLIP]]
// CHECK: %[[C31:.+]] = arith.constant 31 : index
// CHECK: %[[COLFLIP:.+]] = arith.andi %[[MASK]], %[[C31]]
// CHECK: %[[J2:.+]] = arith.xori %[[J:.+]], %[[COLFLIP]]
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
// CHECK: %[[PANELROWS:.+]] = arith.shli %{{.+}}, %c6 :
// CHECK: %[[I2:.+]] = arith.addi %[[PANELROWS]], %{{.+}}
// CHECK: %[[X:.+]] = arith.shli %{{.+}}, %c3 :
// CHECK: %[[SW:.+]] = arith.xori %{{.+}}, %[[X]]
// CHECK: %[[J2:.+]] = arith.addi %{{.+}}, %[[SW]]
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
