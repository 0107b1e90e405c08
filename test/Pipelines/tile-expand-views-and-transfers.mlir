// RUN: tile-opt %s -split-input-file --tile-expand-views-and-transfers | FileCheck %s

// Neither a view nor a transfer: the IR is left as it is (not even folded,
// as the upstream passes' greedy driver would).
// CHECK-LABEL: func.func @nothing_to_expand
// CHECK: %[[SUM:.*]] = arith.addi %c1, %c2 : index
// CHECK: memref.load %{{.*}}[%[[SUM]]]
func.func @nothing_to_expand(%m: memref<8xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %i = arith.addi %c1, %c2 : index
  %v = memref.load %m[%i] : memref<8xf32>
  return %v : f32
}

// -----

// A subview: expand-strided-metadata's patterns run (a reinterpret_cast of
// the source's base with the offset computed), on the subview and what
// they create only: the other ops are not folded.
// CHECK-LABEL: func.func @subview
// CHECK: memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast
// CHECK-NOT: memref.subview
// CHECK: %[[SUM:.*]] = arith.addi %c1, %c2 : index
// CHECK: memref.load %{{.*}}[%[[SUM]]]
func.func @subview(%m: memref<8x8xf32>, %i: index) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %row = memref.subview %m[%i, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1], offset: ?>>
  %j = arith.addi %c1, %c2 : index
  %v = memref.load %row[%j] : memref<8xf32, strided<[1], offset: ?>>
  return %v : f32
}

// -----

// A subview of a subview: the patterns reach the ops they create and the
// uses of what they replace (the inner subview's metadata), down to one
// reinterpret_cast of the base.
// CHECK-LABEL: func.func @nested_subview
// CHECK-NOT: memref.subview
// CHECK: memref.reinterpret_cast
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.load
func.func @nested_subview(%m: memref<8x8x8xf32>, %i: index, %j: index) -> f32 {
  %c0 = arith.constant 0 : index
  %plane = memref.subview %m[%i, 0, 0] [1, 8, 8] [1, 1, 1] : memref<8x8x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
  %row = memref.subview %plane[%j, 0] [1, 8] [1, 1] : memref<8x8xf32, strided<[8, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
  %v = memref.load %row[%c0] : memref<8xf32, strided<[1], offset: ?>>
  return %v : f32
}

// -----

// A vector transfer: convert-vector-to-scf runs (the 2-D transfer becomes
// a loop of 1-D ones, which the LLVM conversion handles).
// CHECK-LABEL: func.func @transfer
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : memref<?x?xf32>, vector<4xf32>
// CHECK-NOT: vector.transfer_read
func.func @transfer(%m: memref<?x?xf32>, %i: index) -> vector<2x4xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %i], %pad : memref<?x?xf32>, vector<2x4xf32>
  return %v : vector<2x4xf32>
}
