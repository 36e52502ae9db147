// privatize diagnostics: an entrypoint set naming a declaration (written by
// hand: classify-entrypoints never exports one) cannot make it public.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p privatize | FileCheck %s

builtin.module attributes {gpuc.entrypoints = [@k, @decl]} {
  gpuc.func @k() kernel {
    gpuc.return
  }
  // CHECK: privatize_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.func' op @decl is in the entrypoint set ('gpuc.entrypoints') but is a declaration, which must stay private; define it here or take it out of the set
  gpuc.func private @decl() helper
}
