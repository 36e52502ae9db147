// classify-entrypoints records the entrypoint set on the module: every kernel
// with a body, then the explicit exports, in module order.
// RUN: gpuc-opt %s --split-input-file -p classify-entrypoints | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -p 'classify-entrypoints{exports=helper,"@other"}' | FileCheck %s --check-prefix=EXPORT

// CHECK-LABEL: builtin.module attributes {gpuc.entrypoints = [@k1, @child.kernel]} {
// EXPORT-LABEL: builtin.module attributes {gpuc.entrypoints = [@k1, @helper, @other, @child.kernel]} {
gpuc.func @k1() kernel {
  gpuc.return
}
gpuc.func private @helper() helper {
  gpuc.return
}
func.func private @other() {
  func.return
}
gpuc.func private @decl_kernel() kernel
gpuc.func @child.kernel() kernel {
  gpuc.return
}
builtin.module @nested {
  gpuc.func @inner() kernel {
    gpuc.return
  }
}
