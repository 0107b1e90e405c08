// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-promote-registers))' | FileCheck %s

// Straight-line code: every load takes the value last stored to its
// element; the buffer is gone.
// CHECK-LABEL: func.func @straight
// CHECK-SAME: (%[[A:.+]]: f32, %[[B:.+]]: f32)
// CHECK-NOT: memref.
// CHECK: %[[S:.+]] = arith.addf %[[A]], %[[B]]
// CHECK-NEXT: return %[[S]], %[[B]]
func.func @straight(%a: f32, %b: f32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloca() : memref<2x2xf32>
  memref.store %a, %buf[%c0, %c0] : memref<2x2xf32>
  memref.store %b, %buf[%c1, %c1] : memref<2x2xf32>
  %x = memref.load %buf[%c0, %c0] : memref<2x2xf32>
  %y = memref.load %buf[%c1, %c1] : memref<2x2xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %buf[%c0, %c0] : memref<2x2xf32>
  %r = memref.load %buf[%c0, %c0] : memref<2x2xf32>
  return %r, %y : f32, f32
}

// -----

// A loop-carried register: a block argument at the loop header, passed
// the value before the loop and the one stored in the body; the exit reads
// the header's.
// CHECK-LABEL: func.func @loop
// CHECK-NOT: memref.
// CHECK: cf.br ^[[HEAD:.+]](%{{.+}}, %[[INIT:.+]] : index, f32)
// CHECK: ^[[HEAD]](%[[I:.+]]: index, %[[ACC:.+]]: f32):
// CHECK: cf.cond_br %{{.+}}, ^[[BODY:.+]], ^[[EXIT:.+]]
// CHECK: ^[[BODY]]:
// CHECK: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[ACC]]
// CHECK: cf.br ^[[HEAD]](%{{.+}}, %[[NEXT]] : index, f32)
// CHECK: ^[[EXIT]]:
// CHECK: return %[[ACC]]
func.func @loop(%init: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %buf = memref.alloca() : memref<4xf32>
  memref.store %init, %buf[%c3] : memref<4xf32>
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %v = memref.load %buf[%c3] : memref<4xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %buf[%c3] : memref<4xf32>
  %j = arith.addi %i, %c1 : index
  cf.br ^head(%j : index)
^exit:
  %r = memref.load %buf[%c3] : memref<4xf32>
  return %r : f32
}

// -----

// 1-D vector stores and loads along the last dimension: elements through
// vector.extract, loads rebuilt with vector.from_elements. A read before
// any write is zero.
// CHECK-LABEL: func.func @vectors
// CHECK-SAME: (%[[V:.+]]: vector<2xf32>)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[E0:.+]] = vector.extract %[[V]][0]
// CHECK-DAG: %[[E1:.+]] = vector.extract %[[V]][1]
// CHECK: %[[L:.+]] = vector.from_elements %[[E1]], %[[ZERO]] : vector<2xf32>
// CHECK: return %[[L]], %[[E0]]
func.func @vectors(%v: vector<2xf32>) -> (vector<2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloca() : memref<1x4xf32>
  vector.store %v, %buf[%c0, %c0] : memref<1x4xf32>, vector<2xf32>
  %l = vector.load %buf[%c0, %c1] : memref<1x4xf32>, vector<2xf32>
  %s = memref.load %buf[%c0, %c0] : memref<1x4xf32>
  return %l, %s : vector<2xf32>, f32
}

// -----

// A dynamic index, an access past the end or a view: the buffer stays.
// CHECK-LABEL: func.func @left_alone
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}]
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: memref.load %{{.+}}[%c4]
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: memref.subview
func.func @left_alone(%a: f32, %i: index) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %dynamic = memref.alloca() : memref<4xf32>
  memref.store %a, %dynamic[%i] : memref<4xf32>
  %past = memref.alloca() : memref<4xf32>
  memref.store %a, %past[%c0] : memref<4xf32>
  %x = memref.load %past[%c4] : memref<4xf32>
  %viewed = memref.alloca() : memref<4xf32>
  %sub = memref.subview %viewed[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.store %a, %sub[%c0] : memref<2xf32, strided<[1]>>
  %y = memref.load %viewed[%c0] : memref<4xf32>
  return %x, %y : f32, f32
}
