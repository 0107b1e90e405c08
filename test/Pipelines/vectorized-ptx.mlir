// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -verify-diagnostics -o /dev/null | FileCheck %s
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null 2>/dev/null && %ptxas-each %t %}

// A vectorized loop over 8 contiguous, 16-byte aligned f16 is one 128-bit
// load in PTX (and one 128-bit store to the local buffer, which then lives
// in registers).
// CHECK-LABEL: .entry aligned_f16x8(
// CHECK: ld.global.v4.b32
// CHECK-NOT: ld.global.b16
// CHECK: ret;
tile.kernel @aligned_f16x8(%A: memref<1024xf16>, %out: memref<128xf32>) grid [4] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %t = affine.apply affine_map<(b, t) -> (b * 32 + t)>(%bx, %tx)
  %k0 = arith.muli %t, %c8 : index
  %a = tile.alloc_local : memref<8xf16>
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %i = arith.addi %k0, %k : index
    %v = memref.load %A[%i] : memref<1024xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.unroll %k = %c0 to %c8 step %c1 {
    %v = memref.load %a[%k] : memref<8xf16>
    %w = arith.extf %v : f16 to f32
    %s = memref.load %acc[%c0] : memref<1xf32>
    %n = arith.addf %s, %w : f32
    memref.store %n, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %out[%t] : memref<128xf32>
}

// The same loop one element off: eight 16-bit loads, and a remark.
// CHECK-LABEL: .entry misaligned_f16x8(
// CHECK-NOT: ld.global.v4
// CHECK-COUNT-8: ld.global.b16
// CHECK: ret;
tile.kernel @misaligned_f16x8(%A: memref<1032xf16>, %out: memref<128xf32>) grid [4] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  %t = affine.apply affine_map<(b, t) -> (b * 32 + t)>(%bx, %tx)
  %k8 = arith.muli %t, %c8 : index
  %k0 = arith.addi %k8, %c1 : index
  %a = tile.alloc_local : memref<8xf16>
  // expected-remark @+1 {{not vectorized: the offset of 'memref.load' of 'memref<1032xf16>' is not known to be a multiple of 8 elements (16-byte alignment); its 8 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %i = arith.addi %k0, %k : index
    %v = memref.load %A[%i] : memref<1032xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.unroll %k = %c0 to %c8 step %c1 {
    %v = memref.load %a[%k] : memref<8xf16>
    %w = arith.extf %v : f16 to f32
    %s = memref.load %acc[%c0] : memref<1xf32>
    %n = arith.addf %s, %w : f32
    memref.store %n, %acc[%c0] : memref<1xf32>
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %out[%t] : memref<128xf32>
}
