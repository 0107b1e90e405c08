// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-vectorize))' -verify-diagnostics | FileCheck %s

// Eight contiguous f16 at an offset that is a multiple of 8: one 16-byte
// load and one 16-byte store.
// CHECK-LABEL: tile.kernel @f16_x8
// CHECK: %[[V:.+]] = vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<1024xf16>, vector<8xf16>
// CHECK: vector.store %[[V]], %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<8xf16>, vector<8xf16>
// CHECK-NOT: memref.load
// CHECK-NOT: tile.vectorized
tile.kernel @f16_x8(%A: memref<1024xf16>) grid [128] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bx = tile.block_id x
  %k0 = arith.muli %bx, %c8 : index
  %a = tile.alloc_local : memref<8xf16>
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %i = arith.addi %k0, %k : index
    %v = memref.load %A[%i] : memref<1024xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// Elementwise arithmetic between the accesses is vectorized too; eight f32
// make two 16-byte groups.
// CHECK-LABEL: tile.kernel @scale_f32_x8
// CHECK-COUNT-2: vector.load {{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store {{.*}} : memref<64x64xf32>, vector<4xf32>
tile.kernel @scale_f32_x8(%A: memref<64x64xf32>, %alpha: f32) grid [64] threads [8] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %row = tile.block_id x
  %tx = tile.thread_id x
  %col0 = arith.muli %tx, %c8 : index
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %j = arith.addi %col0, %k : index
    %v = memref.load %A[%row, %j] : memref<64x64xf32>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %A[%row, %j] : memref<64x64xf32>
  }
}

// -----

// A start that is not a multiple of the vector length falls back to scalar
// code and says why.
// CHECK-LABEL: tile.kernel @misaligned
// CHECK-NOT: vector.load
// CHECK-COUNT-8: memref.load
tile.kernel @misaligned(%A: memref<1024xf16>) grid [128] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bx = tile.block_id x
  %k8 = arith.muli %bx, %c8 : index
  %k0 = arith.addi %k8, %c1 : index
  %a = tile.alloc_local : memref<8xf16>
  // expected-remark @+1 {{not vectorized: the offset of 'memref.load' of 'memref<1024xf16>' is not known to be a multiple of 8 elements (16-byte alignment); its 8 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %i = arith.addi %k0, %k : index
    %v = memref.load %A[%i] : memref<1024xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// Rows 33 elements apart are never aligned.
// CHECK-LABEL: tile.kernel @padded_rows
tile.kernel @padded_rows(%A: memref<32x33xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  // expected-remark @+1 {{not vectorized: the rows of 'memref.store' of 'memref<32x33xf32>' are 33 elements apart, not a multiple of 4 elements (16-byte alignment); its 4 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c4 step %c1 {
    memref.store %f, %A[%tx, %k] : memref<32x33xf32>
  }
}

// -----

// Strided access: not contiguous in the loop index.
// CHECK-LABEL: tile.kernel @strided
tile.kernel @strided(%A: memref<64xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  // expected-remark @+1 {{not vectorized: the innermost index of 'memref.store' of 'memref<64xf32>' is not the loop index plus a loop-invariant offset; its 4 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c4 step %c1 {
    %i = arith.muli %k, %c2 : index
    memref.store %f, %A[%i] : memref<64xf32>
  }
}

// -----

// Regression: a buffer aligned to 4 bytes only cannot take 16-byte accesses.
tile.kernel @buffer_alignment(%A: memref<64xf32>) grid [1] threads [16] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared {alignment = 4} : memref<64xf32, #gpu.address_space<workgroup>>
  %k0 = arith.muli %tx, %c4 : index
  // expected-remark @+1 {{not vectorized: the buffer of 'memref.store' of 'memref<64xf32, #gpu.address_space<workgroup>>' is only known to be 4-byte aligned; its 4 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c4 step %c1 {
    %i = arith.addi %k0, %k : index
    %v = memref.load %A[%i] : memref<64xf32>
    memref.store %v, %s[%i] : memref<64xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// Regression: the loop index used as a value (it used to crash).
tile.kernel @index_as_value(%A: memref<64xf32>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not vectorized: the loop index is used as a value by 'arith.index_cast'; its 8 iterations run as scalar code}}
  tile.vectorized %i = %c0 to %c8 step %c1 {
    %t = arith.index_cast %i : index to i32
    %f = arith.sitofp %t : i32 to f32
    memref.store %f, %A[%i] : memref<64xf32>
  }
}

// -----

// Regression: i1 elements take a byte each in memory, one bit each in a
// vector: not vectorized.
tile.kernel @bits(%A: memref<64xi1>, %B: memref<64xi1>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{not vectorized: 'memref.load' of 'memref<64xi1>' has elements that are not whole power-of-two bytes; its 16 iterations run as scalar code}}
  tile.vectorized %i = %c0 to %c16 step %c1 {
    %v = memref.load %A[%i] : memref<64xi1>
    memref.store %v, %B[%i] : memref<64xi1>
  }
}

// -----

// An affine.apply that adds the loop index to invariant operands is
// contiguous: its offset moves before the loop and proves alignment
// (bk * 256 + tk * 8 is a multiple of 8).
// CHECK-LABEL: tile.kernel @affine_index
// CHECK: %[[BASE:.+]] = affine.apply
// CHECK: %[[I:.+]] = arith.addi %[[BASE]], %{{.*}} : index
// CHECK: vector.load %{{.*}}[%[[I]]] {alignment = 16 : i64} : memref<1024xf16>, vector<8xf16>
tile.kernel @affine_index(%A: memref<1024xf16>, %bk: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tk = tile.thread_id x
  %a = tile.alloc_local : memref<8xf16>
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %kk = affine.apply affine_map<(bk, tk, k) -> (bk * 256 + tk * 8 + k)>(%bk, %tk, %k)
    %v = memref.load %A[%kk] : memref<1024xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// Twice the loop index is not contiguous.
// CHECK-LABEL: tile.kernel @affine_stride_two
tile.kernel @affine_stride_two(%A: memref<1024xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = tile.alloc_local : memref<8xf16>
  // expected-remark @+1 {{not vectorized: the innermost index of 'memref.load' of 'memref<1024xf16>' is not the loop index plus a loop-invariant offset; its 8 iterations run as scalar code}}
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %kk = affine.apply affine_map<(k) -> (k * 2)>(%k)
    %v = memref.load %A[%kk] : memref<1024xf16>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// One head's rows of a [batch, heads, seq, 64] tensor, viewed by
// memref.subview: the view starts (b H + h) S 64 elements in, a multiple of
// 64, and its rows are 64 apart, so eight f16 at a column that is a
// multiple of 8 are one 16-byte load.
// CHECK-LABEL: tile.kernel @head_view_x8
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
// CHECK-NOT: memref.load
tile.kernel @head_view_x8(%Q: memref<?x?x?x64xf16>) grid [4, 8, 2] threads [8] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %row = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %head = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %tx = tile.thread_id x
  %col0 = arith.muli %tx, %c8 : index
  %a = tile.alloc_local : memref<8xf16>
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %j = arith.addi %col0, %k : index
    %v = memref.load %head[%row, %j] : memref<?x64xf16, strided<[64, 1], offset: ?>>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// A view whose rows are 60 f16 apart (120 bytes) and that starts 8 f16 in:
// its rows are only known to be 8-byte aligned, so the loop moves 4 f16 at
// a time.
// CHECK-LABEL: tile.kernel @narrow_view
// CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<?x8xf16, strided<[60, 1], offset: 8>>, vector<4xf16>
tile.kernel @narrow_view(%A: memref<?x60xf16>) grid [16] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %row = tile.block_id x
  %rows = memref.dim %A, %c0 : memref<?x60xf16>
  %view = memref.subview %A[0, 8] [%rows, 8] [1, 1] : memref<?x60xf16> to memref<?x8xf16, strided<[60, 1], offset: 8>>
  %a = tile.alloc_local : memref<8xf16>
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %v = memref.load %view[%row, %k] : memref<?x8xf16, strided<[60, 1], offset: 8>>
    memref.store %v, %a[%k] : memref<8xf16>
  }
}

// -----

// A view with a column stride of 2 is not contiguous: scalar code, and the
// remark says so.
tile.kernel @strided_columns(%A: memref<64x64xf32>) grid [64] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %row = tile.block_id x
  %view = memref.subview %A[0, 0] [64, 32] [1, 2] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 2]>>
  %a = tile.alloc_local : memref<8xf32>
  // expected-remark @below {{not vectorized: 'memref.load' of 'memref<64x32xf32, strided<[64, 2]>>' is not known to be contiguous along its innermost dimension}}
  tile.vectorized %k = %c0 to %c8 step %c1 {
    %v = memref.load %view[%row, %k] : memref<64x32xf32, strided<[64, 2]>>
    memref.store %v, %a[%k] : memref<8xf32>
  }
}

// -----

// Limits (docs/TileDialect.md): scalar code of 4096 copies of 9 operations
// is over the 8192 operations one unrolled loop may create.
tile.kernel @scalar_too_large(%A: memref<8192xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  // expected-remark @+2 {{not vectorized}}
  // expected-error @+1 {{unrolling 4096 copies of a body of 9 operations would create more than the 8192 operations allowed for one unrolled loop}}
  tile.vectorized %k = %c0 to %c4096 step %c1 {
    %i = arith.muli %k, %c2 : index
    %v = memref.load %A[%i] : memref<8192xf32>
    %w = arith.mulf %v, %v : f32
    %x = arith.addf %w, %v : f32
    %y = arith.mulf %x, %w : f32
    %z = arith.addf %y, %x : f32
    %t = arith.addf %z, %y : f32
    memref.store %t, %A[%i] : memref<8192xf32>
  }
}

// -----

// Two asynchronous stores of one loaded vector: both become cp.async (the
// first used to erase the load the second still mapped to; found by
// scripts/fuzz.py).
// CHECK-LABEL: tile.kernel @two_async_stores
// CHECK-COUNT-2: nvgpu.device_async_copy
tile.kernel @two_async_stores(%A: memref<1024xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = tile.alloc_shared : memref<2x8xf16, #gpu.address_space<workgroup>>
  tile.vectorized %e = %c0 to %c8 step %c1 {
    %v = memref.load %A[%e] : memref<1024xf16>
    memref.store %v, %s[%c0, %e] {tile.async} : memref<2x8xf16, #gpu.address_space<workgroup>>
    memref.store %v, %s[%c1, %e] {tile.async} : memref<2x8xf16, #gpu.address_space<workgroup>>
  }
}
