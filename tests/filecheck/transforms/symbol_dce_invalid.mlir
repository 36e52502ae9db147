// symbol-dce refuses to guess through an unregistered op with one region:
// it may be a symbol table, as in MLIR.
// RUN: gpuc-opt %s --allow-unregistered-dialect -p symbol-dce --verify-diagnostics | FileCheck %s

builtin.module {
  func.func private @g() { func.return }
  func.func @f() {
    // CHECK: symbol_dce_invalid.mlir:[[# @LINE + 1]]:5: error: {{.*}}'u.region' is unregistered and has one region, so it may be a symbol table: the symbol uses of 'func.func' @f cannot be computed; register its dialect or give the op zero or several regions
    "u.region"() ({
      "u.op"() {x = @g} : () -> ()
    }) : () -> ()
    func.return
  }
}
