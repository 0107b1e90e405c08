// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-lower-atomics))' | FileCheck %s

// Scalar atomics become memref.atomic_rmw; the old value is kept when used.
// CHECK-LABEL: tile.kernel @scalar
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<64xf32, #gpu.address_space<workgroup>>) -> f32
// CHECK: %[[OLD:.+]] = memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<64xi32>) -> i32
// CHECK: memref.store %[[OLD]]
// CHECK: memref.atomic_rmw addf %{{.*}} : (bf16, memref<64xbf16>) -> bf16
// CHECK: memref.atomic_rmw addf %{{.*}} : (f16, memref<64xf16, #gpu.address_space<workgroup>>) -> f16
tile.kernel @scalar(%I: memref<64xi32>, %B: memref<64xbf16>) grid [1] threads [64] {
  %tx = tile.thread_id x
  %f = arith.constant 1.0 : f32
  %i = arith.constant 1 : i32
  %b = arith.constant 1.0 : bf16
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.atomic_add %s[%tx], %f : memref<64xf32, #gpu.address_space<workgroup>>, f32
  %old = tile.atomic_add %I[%tx], %i : memref<64xi32>, i32 -> i32
  memref.store %old, %I[%tx] : memref<64xi32>
  tile.atomic_add %B[%tx], %b : memref<64xbf16>, bf16
  %h = arith.constant 1.0 : f16
  %hs = tile.alloc_shared : memref<64xf16, #gpu.address_space<workgroup>>
  tile.atomic_add %hs[%tx], %h : memref<64xf16, #gpu.address_space<workgroup>>, f16
}

// -----

// Packed f16x2: the PTX instruction on the element's generic address; `red`
// when the old value is unused, `atom` otherwise.
// CHECK-LABEL: tile.kernel @packed
// CHECK: memref.extract_strided_metadata
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: vector.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "red.add.noftz.f16x2 [$0], $1;", "l,r"
// CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
// CHECK: %[[BITS:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "atom.add.noftz.bf16x2 $0, [$1], $2;", "=r,l,r"
// CHECK: %[[V:.+]] = vector.from_elements %[[BITS]] : vector<1xi32>
// CHECK: vector.bitcast %[[V]] : vector<1xi32> to vector<2xbf16>
tile.kernel @packed(%H: memref<64xf16>) grid [1] threads [32] {
  %tx = tile.thread_id x
  %c2 = arith.constant 2 : index
  %i = arith.muli %tx, %c2 : index
  %h = arith.constant dense<1.0> : vector<2xf16>
  %b = arith.constant dense<1.0> : vector<2xbf16>
  %s = tile.alloc_shared : memref<64xbf16, #gpu.address_space<workgroup>>
  tile.atomic_add %H[%i], %h : memref<64xf16>, vector<2xf16>
  %old = tile.atomic_add %s[%i], %b : memref<64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16> -> vector<2xbf16>
  %e = vector.extract %old[0] : bf16 from vector<2xbf16>
  %f = arith.extf %e : bf16 to f32
  tile.print "{}" %f : f32
}
