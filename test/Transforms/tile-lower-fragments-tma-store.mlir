// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments{tma=true},canonicalize,cse))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments,canonicalize,cse))' | FileCheck %s --check-prefix=NOTMA

// The TMA-store epilogue. One warp's 16x64 accumulator (mma.sync m16n8:
// register pair p is an 8x8 block, lane l holding its row l / 4) goes out
// to C through a 128-byte-swizzled shared tile of 16 rows x 64 columns:
// the issuing thread (0) first waits for earlier TMA stores to have read
// the tile (one: one chunk), the warp meets at named barrier 1, stores its 16 pairs as 4
// stmatrix.x4 (each 4 words of two f16), fences them for the async proxy,
// meets again, and thread 0 stores the tile at C[0, 0] with TMA and waits
// for it to have been read. No bounds test: TMA clips the box.
// CHECK-LABEL: tile.kernel @tma_store_one_chunk
// CHECK: %[[T0:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc_shared {alignment = 1024
// CHECK: %[[ISSUER:.+]] = arith.cmpi eq, %{{.+}}, %c0 : index
// CHECK: scf.if %[[ISSUER]] {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c32_i32
// CHECK: arith.truncf %{{.+}} : vector<2xf32> to vector<2xf16>
// CHECK-COUNT-4: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c32_i32
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK-NEXT: tile.tma_store %[[T0]] to %{{.+}}[%c0, %c0] {swizzle = 128 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<?x?xf16>
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: tile.copy
// CHECK-NOT: gpu.shuffle
// Without `tma`, the lanes exchange their pairs and store 16 bytes each.
// NOTMA-LABEL: tile.kernel @tma_store_one_chunk
// NOTMA-NOT: nvvm.stmatrix
// NOTMA: gpu.shuffle
// NOTMA: tile.copy
tile.kernel @tma_store_one_chunk(%C: memref<?x?xf16> {tile.multiple_of = 8}) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x64xf32, #tile.fragment> to memref<?x?xf16>
}

// -----

// Three chunks of 64 columns rotate through the two tiles: before the
// third reuses the first tile, thread 0 waits until at most one store (the
// second's) has not been read yet, and the warp meets. Each store starts
// 64 columns after the last.
// CHECK-LABEL: tile.kernel @tma_store_three_chunks
// CHECK-DAG: %[[T0:.+]] = tile.alloc_shared {{.*}} : memref<16x64xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[T1:.+]] = tile.alloc_shared {{.*}} : memref<16x64xbf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK: tile.tma_store %[[T0]] to %[[C:.+]][%[[M:.+]], %[[N:.+]]] {swizzle = 128 : i64}
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK: %[[N1:.+]] = arith.addi %[[N]], %c64 : index
// CHECK-NEXT: tile.tma_store %[[T1]] to %[[C]][%[[M]], %[[N1]]] {swizzle = 128 : i64}
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c32_i32
// CHECK-COUNT-4: nvvm.stmatrix
// CHECK: %[[N2:.+]] = arith.addi %[[N]], %c128 : index
// CHECK-NEXT: tile.tma_store %[[T0]] to %[[C]][%[[M]], %[[N2]]] {swizzle = 128 : i64}
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: tile.tma_store
tile.kernel @tma_store_three_chunks(%C: memref<?x?xbf16> {tile.multiple_of = 8}, %m: index, %n: index) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x192xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x192xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x192xbf16, #gpu.address_space<workgroup>>, memref<16x192xf32, #tile.fragment>
  tile.copy %acc to %C[%m, %n] : memref<16x192xf32, #tile.fragment> to memref<?x?xbf16>
}

// -----

// Where TMA cannot store, the copy goes out as before: rows not known to
// be multiples of 16 bytes, f32 elements, a fragment narrower than 64
// columns.
// CHECK-LABEL: tile.kernel @tma_store_unaligned_rows
// CHECK-NOT: nvvm.stmatrix
// CHECK: tile.copy
// CHECK-LABEL: tile.kernel @tma_store_f32
// CHECK-NOT: nvvm.stmatrix
// CHECK: tile.copy
// CHECK-LABEL: tile.kernel @tma_store_narrow
// CHECK-NOT: nvvm.stmatrix
// CHECK: tile.copy
tile.kernel @tma_store_unaligned_rows(%C: memref<?x?xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x64xf32, #tile.fragment> to memref<?x?xf16>
}

tile.kernel @tma_store_f32(%C: memref<?x?xf32> {tile.multiple_of = 8}) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x64xf32, #tile.fragment> to memref<?x?xf32>
}

tile.kernel @tma_store_narrow(%C: memref<?x?xf16> {tile.multiple_of = 8}) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf32, #tile.fragment>
  tile.copy %acc to %C[%c0, %c0] : memref<16x32xf32, #tile.fragment> to memref<?x?xf16>
}

// -----

// Into a subview of a 4-D argument that fixes the two leading dimensions
// and keeps the last two whole (one head of [batch, heads, seq, d], as
// attention writes O): the store addresses the argument, the fixed
// dimensions' indices first, and TMA clips the box at the argument's (the
// view's) edges.
// CHECK-LABEL: tile.kernel @tma_store_head_view
// CHECK-SAME: (%[[O:[^:]+]]: memref<?x?x?x64xf16>, %[[B:[^:]+]]: index, %[[H:[^:]+]]: index, %[[M:[^:]+]]: index)
// CHECK: nvvm.stmatrix
// CHECK: tile.tma_store %{{.+}} to %[[O]][%[[B]], %[[H]], %[[M]], %c0] {swizzle = 128 : i64} : memref<16x64xf16, #gpu.address_space<workgroup>> to memref<?x?x?x64xf16>
// CHECK-NOT: tile.copy
// NOTMA-LABEL: tile.kernel @tma_store_head_view
// NOTMA-NOT: tile.tma_store
tile.kernel @tma_store_head_view(%O: memref<?x?x?x64xf16>, %b: index, %h: index, %m: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %seq = memref.dim %O, %c2 : memref<?x?x?x64xf16>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
  tile.copy %acc to %Oh[%m, %c0] : memref<16x64xf32, #tile.fragment> to memref<?x64xf16, strided<[64, 1], offset: ?>>
}

// -----

// A view that ends before the argument does (its rows are another
// tensor's length): TMA would write past the view's end, so the copy goes
// out directly, bounded by the view.
// CHECK-LABEL: tile.kernel @tma_store_short_view
// CHECK-NOT: tile.tma_store
// CHECK: tile.copy
tile.kernel @tma_store_short_view(%O: memref<?x?x?x64xf16>, %Q: memref<?x?x?x64xf16>, %b: index, %h: index, %m: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<16x64xf32, #tile.fragment>
  tile.copy %acc to %Oh[%m, %c0] : memref<16x64xf32, #tile.fragment> to memref<?x64xf16, strided<[64, 1], offset: ?>>
}
