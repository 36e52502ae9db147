// The configured target lives in the module (#gpuc.target): a `-t` output
// lowers a module for its own target only, and a module the pipeline has not
// finished gets what lowering needs (its target, entrypoint set, records).
// RUN: gpuc-opt %s -p 'gpuc-pipeline{target="ptx{sm=80}"}' -t 'ptx{sm=80}' | FileCheck %s
// RUN: not gpuc-opt %s -p 'gpuc-pipeline{target=spirv}' -t ptx 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: gpuc-opt %s -p 'gpuc-pipeline{target="ptx{sm=80}"}' | FileCheck %s --check-prefix=MLIR
// RUN: gpuc-opt %s -t ptx | FileCheck %s --check-prefix=RAW
// RUN: not gpuc-opt %s -p 'attach-target{target="ptx{sm=70}"}' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: .target sm_80
// CHECK: .visible .entry k(
// OTHER: error: 'builtin.module' op the module is configured for spirv ('gpuc.target') but is lowered for ptx{sm=90}; lower it for its own target (-t 'spirv')
// MLIR: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 80>, gpuc.entrypoints = [@k]} {
// MLIR: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", cconv = "ptx_kernel", shared = 0>} {
// RAW: .target sm_90
// RAW: .visible .entry k(
// BAD: sm_70 is not supported; choose one of sm_75
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %v = arith.constant 1.0 : f32
  gpuc.store %v, %p : !gpuc.ptr<f32, global>
  gpuc.return
}

// The LLVM output takes a target spec, or lowers for the module's own target
// (so a ptx{sm=80} module needs no options repeated).
// RUN: gpuc-opt %s -p 'gpuc-pipeline{target="ptx{sm=80}"}' -t llvm | FileCheck %s --check-prefix=LLVM
// RUN: gpuc-opt %s -t 'llvm{target="ptx{sm=80}"}' | FileCheck %s --check-prefix=LLVM
// LLVM: define ptx_kernel void @k(
