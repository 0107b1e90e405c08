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

// A signed floor division: upstream's arith-expand runs, unchanged.
// CHECK-LABEL: func.func @floor_division
// CHECK-NOT: arith.floordivsi
// CHECK: arith.divsi
// CHECK: arith.select
func.func @floor_division(%a: index, %b: index) -> index {
  %q = arith.floordivsi %a, %b : index
  return %q : index
}
