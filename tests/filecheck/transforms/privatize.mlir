// privatize: the public top-level symbols become exactly the entrypoint set
// recorded by classify-entrypoints; declarations stay declarations.
// RUN: gpuc-opt %s --split-input-file -p 'classify-entrypoints{exports=exported},privatize' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p privatize | FileCheck %s --check-prefix=NOSET

// NOSET: error: 'builtin.module' op the module has no entrypoint set ('gpuc.entrypoints'); run classify-entrypoints first

// CHECK-LABEL: builtin.module attributes {gpuc.entrypoints = [@k, @exported, @child.kernel]} {
// CHECK-NEXT:    gpuc.func @k() kernel
// CHECK:         gpuc.func @exported() helper
// CHECK:         gpuc.func private @helper() helper
// CHECK:         gpuc.func private @decl(f32) -> f32 helper
// CHECK:         gpuc.func @child.kernel() kernel
// CHECK:         func.func private @plain()
// CHECK:         builtin.module @m attributes {sym_visibility = "private"} {
// CHECK-NEXT:      gpuc.func @inner() helper
gpuc.func @k() kernel {
  gpuc.return
}
gpuc.func private @exported() helper {
  gpuc.return
}
gpuc.func @helper() helper {
  gpuc.return
}
gpuc.func private @decl(f32) -> f32 helper
gpuc.func private @child.kernel() kernel {
  gpuc.return
}
func.func @plain() {
  func.return
}
builtin.module @m {
  gpuc.func @inner() helper {
    gpuc.return
  }
}
