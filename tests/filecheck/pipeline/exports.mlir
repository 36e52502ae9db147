// The whole pipeline with an explicit export (GPUCompiler.jl PR #928): an
// exported helper stays public but is not finalized as a kernel; what is
// neither exported nor a kernel is internalized and dropped.
// RUN: gpuc-opt %s -p 'gpuc-pipeline{target=ptx exports=exported}' | FileCheck %s

// An explicitly exported helper stays public and is not finalized as a
// kernel: only the kernel of the entrypoint set gets the target's finishing.
// CHECK-LABEL: builtin.module attributes {gpuc.target = "ptx", gpuc.entrypoints = [@k, @exported]} {
// CHECK-NEXT:    gpuc.func @k() kernel attributes {gpuc.static_shared_bytes = 0 : i64} {
// CHECK:         gpuc.func @exported(%x: f32) -> f32 helper {
// CHECK-NOT:     @unexported
gpuc.func @k() kernel {
  gpuc.return
}
gpuc.func @exported(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func @unexported(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
