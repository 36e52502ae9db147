// A module's target is set once and must be a target gpuc knows, with
// options that target takes: anything else is a diagnostic at the module
// (a module configured for another target: transforms/gpuc_pipeline.mlir).
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p attach-target | FileCheck %s

// CHECK: [[# @LINE + 1]]:1: error: 'builtin.module' op 'gpuc.target' #gpuc.target<native, sm = 90>: unknown option(s) sm for target 'native'; accepted: none
builtin.module attributes {gpuc.target = #gpuc.target<native, sm = 90>} {
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: 'builtin.module' op 'gpuc.target' #gpuc.target<ptx, sm = "x">: sm must be an int such as 90, got 'x'
builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = "x">} {
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: 'builtin.module' op 'gpuc.target' #gpuc.target<tpu>: unknown target 'tpu'; expected one of: ptx, spirv, native
builtin.module attributes {gpuc.target = #gpuc.target<tpu>} {
}

// -----

// CHECK: [[# @LINE + 1]]:1: error: 'builtin.module' op 'gpuc.target' must be a #gpuc.target<...> attribute, got "ptx"; write e.g. gpuc.target = #gpuc.target<ptx, sm = 90>
builtin.module attributes {gpuc.target = "ptx"} {
}
