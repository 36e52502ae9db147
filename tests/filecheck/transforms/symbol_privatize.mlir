// symbol-privatize with MLIR's semantics: top-level symbols become private,
// except those in `exclude`; nested tables are not entered.
// RUN: gpuc-opt %s --split-input-file -p symbol-privatize | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -p 'symbol-privatize{exclude=keep,also_kept}' | FileCheck %s --check-prefix=EXCLUDE

// CHECK-LABEL: module attributes {test.case = "all"}
// CHECK:         gpuc.func private @k() kernel
// CHECK:         func.func private @keep()
// CHECK:         func.func private @also_kept()
// CHECK:         func.func private @decl()
// CHECK:         builtin.module @m attributes {sym_visibility = "private"} {
// CHECK-NEXT:      func.func @inner()
// EXCLUDE-LABEL: module attributes {test.case = "all"}
// EXCLUDE:         gpuc.func private @k() kernel
// EXCLUDE:         func.func @keep()
// EXCLUDE:         func.func @also_kept()
// EXCLUDE:         func.func private @decl()
builtin.module attributes {test.case = "all"} {
  gpuc.func @k() kernel { gpuc.return }
  func.func @keep() { func.return }
  func.func @also_kept() { func.return }
  func.func private @decl()
  builtin.module @m {
    func.func @inner() { func.return }
  }
}

// -----

// A module without a name is not a symbol (MLIR: an optional symbol needs a
// name), so it keeps its visibility and its contents.
// CHECK-LABEL: module attributes {test.case = "unnamed"}
// CHECK:         builtin.module {
// CHECK-NEXT:      func.func @inner()
builtin.module attributes {test.case = "unnamed"} {
  builtin.module {
    func.func @inner() { func.return }
  }
}
