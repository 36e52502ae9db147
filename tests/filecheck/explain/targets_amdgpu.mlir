// REQUIRES: ld.lld
// targets.mlir for the amdgpu target (its code objects are linked by ld.lld):
// the kernel and the exported helper are GLOBAL FUNC symbols of the code
// object.
// RUN: gpuc explain %s --export exported --target amdgpu | FileCheck %s

// CHECK-LABEL: @k: entrypoint: kernel of the module
// CHECK:         artefact: FUNC symbol k (GLOBAL)
// CHECK-LABEL: @exported: entrypoint: explicit export
// CHECK:         artefact: FUNC symbol exported (GLOBAL)
gpuc.func @k(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %d = gpuc.call @exported(%x) : (f32) -> f32
  gpuc.store %d, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @exported(%x: f32) -> f32 helper no_inline {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}
