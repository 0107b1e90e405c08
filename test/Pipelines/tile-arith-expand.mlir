// RUN: tile-opt %s -split-input-file --tile-arith-expand | FileCheck %s

// Nothing arith-expand rewrites: the IR is left as it is (not even folded).
// CHECK-LABEL: func.func @nothing_to_expand
// CHECK: %[[SUM:.*]] = arith.addi %c1, %c2 : index
// CHECK: return %[[SUM]]
func.func @nothing_to_expand() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = arith.addi %c1, %c2 : index
  return %s : index
}

// -----

// A signed floor division and a maximum: arith-expand's patterns rewrite
// them; the other ops are not folded.
// CHECK-LABEL: func.func @floor_division
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.maxsi
// CHECK: arith.divsi
// CHECK: arith.select
// CHECK: arith.addi %c1, %c2 : index
func.func @floor_division(%a: index, %b: index) -> (index, index, index) {
  %q = arith.floordivsi %a, %b : index
  %m = arith.maxsi %a, %b : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = arith.addi %c1, %c2 : index
  return %q, %m, %s : index, index, index
}
