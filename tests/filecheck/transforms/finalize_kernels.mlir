// finalize-kernels runs the target's kernel finishing on the kernels of the
// entrypoint set, and only there: not on an exported helper, nor on a kernel
// the (here hand-written) set leaves out. The target's finishing records the
// kernel's static shared memory (gpuc.static_shared_bytes).
// RUN: gpuc-opt %s -p 'finalize-kernels{target=ptx}' | FileCheck %s

// CHECK-LABEL: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.static_shared_bytes = 1024 : i64} {
// CHECK-LABEL: gpuc.func @exported() helper {
// CHECK-LABEL: gpuc.func @not_in_set() kernel {
builtin.module attributes {gpuc.entrypoints = [@k, @exported]} {
  gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
    %s = gpuc.shared_alloc 256 : !gpuc.ptr<f32, shared>
    gpuc.return
  }
  gpuc.func @exported() helper {
    gpuc.return
  }
  gpuc.func @not_in_set() kernel {
    gpuc.return
  }
}
