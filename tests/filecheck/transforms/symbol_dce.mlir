// symbol-dce with MLIR's semantics, on func.func, gpuc.func and nested modules.
// RUN: gpuc-opt %s --split-input-file --allow-unregistered-dialect -p symbol-dce | FileCheck %s

// Private symbols nobody live uses are removed; public ones always stay.
// CHECK-LABEL: module attributes {test.case = "private_dead"}
// CHECK-NOT:     @dead
// CHECK:         func.func private @live
// CHECK:         func.func @pub
// CHECK-NOT:     @dead
builtin.module attributes {test.case = "private_dead"} {
  func.func private @dead() { func.return }
  func.func private @live() { func.return }
  func.func @pub() {
    func.call @live() : () -> ()
    func.return
  }
}

// -----

// A chain of private uses is live only through a live root: a dead caller
// does not keep its callee.
// CHECK-LABEL: module attributes {test.case = "chains"}
// CHECK:         gpuc.func private @c(
// CHECK:         gpuc.func private @b(
// CHECK:         gpuc.func @a(
// CHECK-NOT:     @orphan
builtin.module attributes {test.case = "chains"} {
  gpuc.func private @c() helper { gpuc.return }
  gpuc.func private @b() helper {
    gpuc.call @c() : () -> ()
    gpuc.return
  }
  gpuc.func @a() kernel {
    gpuc.call @b() : () -> ()
    gpuc.return
  }
  gpuc.func private @orphan_callee() helper { gpuc.return }
  gpuc.func private @orphan() helper {
    gpuc.call @orphan_callee() : () -> ()
    gpuc.return
  }
}

// -----

// Private declarations go when unused and stay, as declarations, when used.
// CHECK-LABEL: module attributes {test.case = "declarations"}
// CHECK-NOT:     @unused_decl
// CHECK:         gpuc.func private @used_decl(f32) -> f32 helper
// CHECK-NOT:     @unused_decl
builtin.module attributes {test.case = "declarations"} {
  gpuc.func private @unused_decl(f32) -> f32 helper
  gpuc.func private @used_decl(f32) -> f32 helper
  gpuc.func @k(%x: f32) kernel {
    %y = gpuc.call @used_decl(%x) : (f32) -> f32
    gpuc.return
  }
}

// -----

// Nested symbol tables: a private module lives only if referenced; inside a
// live one, its own private symbols follow the same rules; `@m::@f` keeps
// both `@m` and `@f`.
// CHECK-LABEL: module attributes {test.case = "nested"}
// CHECK:         module @m attributes {sym_visibility = "private"}
// CHECK-NEXT:      func.func private @f()
// CHECK-NOT:       @m_dead
// CHECK-NOT:     @unreferenced
// CHECK:         "test.user"() {ref = @m::@f}
builtin.module attributes {test.case = "nested"} {
  builtin.module @m attributes {sym_visibility = "private"} {
    func.func private @f() { func.return }
    func.func private @m_dead() { func.return }
  }
  builtin.module @unreferenced attributes {sym_visibility = "private"} {
    func.func @public_inside() { func.return }
  }
  "test.user"() {ref = @m::@f} : () -> ()
}

// -----

// References in any attribute of any op count, at any depth (arrays,
// dictionaries); a reference to a missing symbol is ignored, and one that
// fails part-way (@m2::@missing) keeps nothing alive.
// CHECK-LABEL: module attributes {test.case = "attributes"}
// CHECK:         func.func private @in_array()
// CHECK:         func.func private @in_dict()
// CHECK-NOT:     @m2
// CHECK:         "test.user"()
builtin.module attributes {test.case = "attributes"} {
  func.func private @in_array() { func.return }
  func.func private @in_dict() { func.return }
  builtin.module @m2 attributes {sym_visibility = "private"} {
  }
  "test.user"() {refs = [[@in_array]], d = {k = @in_dict, m = @m2::@missing, x = @nowhere}} : () -> ()
}

// -----

// A symbol referenced only from a dead symbol's body dies with it, even when
// the reference is held by an unregistered op.
// CHECK-LABEL: module attributes {test.case = "dead_user"}
// CHECK-NOT:     @only_from_dead
// CHECK-NOT:     @dead_user
builtin.module attributes {test.case = "dead_user"} {
  func.func private @only_from_dead() { func.return }
  func.func private @dead_user() {
    "test.op"() {callee = @only_from_dead} : () -> ()
    func.return
  }
}

// -----

// Symbols in a table nested inside another op's region are never live (MLIR
// deletes even the public ones); the table itself is not a symbol of ours.
// CHECK-LABEL: module attributes {test.case = "table_in_region"}
// CHECK:         builtin.module @q {
// CHECK-NEXT:    }
builtin.module attributes {test.case = "table_in_region"} {
  "test.wrap"() ({
    builtin.module @q {
      func.func @pub_q() { func.return }
    }
  }, {
  }) : () -> ()
}
