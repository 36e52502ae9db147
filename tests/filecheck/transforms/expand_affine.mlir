// RUN: gpuc-opt --split-input-file -p expand-affine %s | filecheck %s

// affine.apply, affine.min and affine.max become arith on index, wherever
// they are (tests/filecheck/import/affine_ops.mlir has every expression
// kind, compiled and run).

// CHECK-LABEL: func.func @apply
// CHECK-NOT:     affine.apply
// CHECK:         %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %i, %[[C]] : index
// CHECK-NEXT:    %r = arith.addi %[[M]], %j : index
// CHECK-NEXT:    func.return %r : index
func.func @apply(%i: index, %j: index) -> index {
  %r = "affine.apply"(%i, %j) <{map = affine_map<(d0, d1) -> (d0 * 4 + d1)>}> : (index, index) -> index
  func.return %r : index
}

// -----

// CHECK-LABEL: func.func @min
// CHECK-NOT:     affine.min
// CHECK:         arith.minsi
// CHECK-NOT:     affine.min
func.func @min(%i: index, %n: index) -> index {
  %r = "affine.min"(%i, %n) <{map = affine_map<(d0)[s0] -> (32, s0 - d0)>}> : (index, index) -> index
  func.return %r : index
}

// -----

// Nothing else changes.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    %r = arith.addi %i, %i : index
func.func @none(%i: index) -> index {
  %r = arith.addi %i, %i : index
  func.return %r : index
}
