// The whole pipeline with an explicit export (GPUCompiler.jl PR #928): an
// exported helper stays public but is not finalized as a kernel; what is
// neither exported nor a kernel is internalized and dropped.
// RUN: gpuc-opt %s --split-input-file -p 'gpuc-pipeline{target=ptx exports=exported}' | FileCheck %s

// An explicitly exported helper stays public and is not finalized as a
// kernel: only the kernel of the entrypoint set gets the target's finishing.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90>, gpuc.entrypoints = [@k, @exported]} {
// CHECK-NEXT:    gpuc.func @k() kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", cconv = "ptx_kernel", shared = 0>} {
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

// -----

// The entrypoint attribute and the set finalize-kernels visits are the same:
// each kernel it lists (the child kernel job included) gets the target's
// finishing (its #gpuc.finalized record), and nothing else does: not the
// exported helper, not the helper it calls; an unused kernel declaration is
// neither in the set nor kept.
// CHECK-LABEL: builtin.module attributes {gpuc.target = #gpuc.target<ptx, sm = 90>, gpuc.entrypoints = [@k1, @exported, @k2, @child.kernel]} {
// CHECK-NEXT:    gpuc.func @k1(%p: !gpuc.ptr<f32, global>, %n: index) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k1", cconv = "ptx_kernel", shared = 0>} {
// CHECK-NEXT:      gpuc.launch @child.kernel
// CHECK:         gpuc.func @exported(%x: f32) -> f32 helper {
// CHECK:         gpuc.func private @kept(%x: f32) -> f32 helper no_inline {
// CHECK-NOT:     @kernel_decl
// CHECK:         gpuc.func @k2(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k2", cconv = "ptx_kernel", shared = 16>} {
// CHECK-NOT:     @child(
// CHECK:         gpuc.func @child.kernel(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "child_$_kernel", cconv = "ptx_kernel", shared = 32>} {
// CHECK-NOT:     gpuc.func
gpuc.func @k1(%p: !gpuc.ptr<f32, global>, %n: index) kernel {
  gpuc.deferred_launch @child grid(%n) block(%n) (%p) #gpuc.job<kernel> : (!gpuc.ptr<f32, global>)
  gpuc.return
}
gpuc.func @exported(%x: f32) -> f32 helper {
  %y = gpuc.call @kept(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @kept(%x: f32) -> f32 helper no_inline {
  gpuc.return %x : f32
}
gpuc.func private @kernel_decl(!gpuc.ptr<f32, global>) kernel
gpuc.func @k2(%p: !gpuc.ptr<f32, global>) kernel {
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>
  gpuc.return
}
gpuc.func private @child(%p: !gpuc.ptr<f32, global>) helper {
  %s = gpuc.shared_alloc 8 : !gpuc.ptr<f32, shared>
  gpuc.return
}
