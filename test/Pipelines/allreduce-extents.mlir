// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null && %ptxas-each %t %}

// thread_allreduce over every extent from 2 to 1024 that matters (powers of
// two, their neighbours, primes), over y only in 2-D blocks, over x and z in
// a 3-D block, for f32, f16, bf16 and i32: each lowers and assembles.
// Power-of-two blocks use shuffles; others a shared-memory tree.

// CHECK-LABEL: .entry x2(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x2(%out: memref<1xf32>) grid [1] threads [2] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x3(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x3(%out: memref<1xf32>) grid [1] threads [3] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x5(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x5(%out: memref<1xf32>) grid [1] threads [5] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x7(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x7(%out: memref<1xf32>) grid [1] threads [7] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x31(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x31(%out: memref<1xf32>) grid [1] threads [31] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x32(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x32(%out: memref<1xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x33(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x33(%out: memref<1xf32>) grid [1] threads [33] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x64(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x64(%out: memref<1xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x100(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x100(%out: memref<1xf32>) grid [1] threads [100] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x128(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x128(%out: memref<1xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x255(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x255(%out: memref<1xf32>) grid [1] threads [255] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x256(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x256(%out: memref<1xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x500(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x500(%out: memref<1xf32>) grid [1] threads [500] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x512(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x512(%out: memref<1xf32>) grid [1] threads [512] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x1000(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x1000(%out: memref<1xf32>) grid [1] threads [1000] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x1023(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @x1023(%out: memref<1xf32>) grid [1] threads [1023] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry x1024(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @x1024(%out: memref<1xf32>) grid [1] threads [1024] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(x) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry y_of_2x32(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @y_of_2x32(%out: memref<1xf32>) grid [1] threads [2, 32] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = tile.thread_allreduce add %f across(y) : f32
  memref.store %s, %out[%c0] : memref<1xf32>
}

// CHECK-LABEL: .entry y_of_4x256(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @y_of_4x256(%out: memref<1xf16>) grid [1] threads [4, 256] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to f16
  %s = tile.thread_allreduce max %f across(y) : f16
  memref.store %s, %out[%c0] : memref<1xf16>
}

// CHECK-LABEL: .entry y_of_3x10(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @y_of_3x10(%out: memref<1xi32>) grid [1] threads [3, 10] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.addi %i, %i : i32
  %s = tile.thread_allreduce xor %f across(y) : i32
  memref.store %s, %out[%c0] : memref<1xi32>
}

// CHECK-LABEL: .entry xz_of_16x4x2(
// CHECK: shfl.sync.bfly
// CHECK: ret;
tile.kernel @xz_of_16x4x2(%out: memref<1xbf16>) grid [1] threads [16, 4, 2] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.sitofp %i : i32 to bf16
  %s = tile.thread_allreduce min %f across(x, z) : bf16
  memref.store %s, %out[%c0] : memref<1xbf16>
}

// CHECK-LABEL: .entry xz_of_3x4x5(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @xz_of_3x4x5(%out: memref<1xi32>) grid [1] threads [3, 4, 5] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %f = arith.addi %i, %i : i32
  %s = tile.thread_allreduce mul %f across(x, z) : i32
  memref.store %s, %out[%c0] : memref<1xi32>
}
// CHECK-LABEL: .entry and_of_8x8(
// CHECK: shfl.sync.bfly
// CHECK: and.b32
tile.kernel @and_of_8x8(%out: memref<1xi32>) grid [1] threads [8, 8] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %s = tile.thread_allreduce and %i across(x, y) : i32
  memref.store %s, %out[%c0] : memref<1xi32>
}

// CHECK-LABEL: .entry or_of_6x6(
// CHECK-NOT: shfl.sync
// CHECK: or.b32
tile.kernel @or_of_6x6(%out: memref<1xi32>) grid [1] threads [6, 6] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %i = arith.index_cast %tx : index to i32
  %s = tile.thread_allreduce or %i across(y) : i32
  memref.store %s, %out[%c0] : memref<1xi32>
}
