// classify-entrypoints diagnostics.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'classify-entrypoints{exports=decl}' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'classify-entrypoints{exports=nope}' | FileCheck %s --check-prefix=MISSING

// MISSING: error: 'builtin.module' op exported symbol @nope is not defined at the top of the module; export a top-level symbol by its name

gpuc.func @k(%x: f32) kernel {
  // CHECK: classify_entrypoints_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.deferred_call' op the entrypoint set is computed after resolution, but this deferred op is unresolved; run resolve-deferred first
  %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
  gpuc.return
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: 'gpuc.func' op @decl is a declaration and cannot be exported (it is defined elsewhere); export a definition
gpuc.func private @decl(f32) -> f32 helper
