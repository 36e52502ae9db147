// What SPIR-V for OpenCL cannot express is a diagnostic from verify-target,
// before LLVM's SPIR-V back-end (which would end the process) sees it.
// RUN: not gpuc-opt %s --split-input-file -t spirv 2>&1 | FileCheck %s

// CHECK: verify_target.mlir:[[# @LINE + 3]]:3: error: 'gpuc.launch' op launches a kernel from the device, which SPIR-V for OpenCL cannot express; launch the child kernel from the host instead
gpuc.func @parent(%p: !gpuc.ptr<f32, global>) kernel {
  %c1 = arith.constant 1 : index
  gpuc.launch @child grid(%c1) block(%c1) (%p) : (!gpuc.ptr<f32, global>)
  gpuc.return
}
gpuc.func @child(%p: !gpuc.ptr<f32, global>) kernel {
  gpuc.return
}

// -----

// CHECK: verify_target.mlir:[[# @LINE + 2]]:9: error: 'gpuc.func_addr' op uses a function pointer, which SPIR-V for OpenCL cannot express (it needs SPV_INTEL_function_pointers); call the function directly
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %fp = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32>
  gpuc.return
}
gpuc.func private @h(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}

// -----

// CHECK: verify_target.mlir:[[# @LINE + 5]]:1: error: 'gpuc.func' op is recursive (@a -> @b -> @a); OpenCL kernels cannot recurse: rewrite it as a loop
gpuc.func @k(%x: f32) kernel {
  %r = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @a(%x: f32) -> f32 helper {
  %r = gpuc.call @b(%x) : (f32) -> f32
  gpuc.return %r : f32
}
gpuc.func private @b(%x: f32) -> f32 helper {
  %r = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return %r : f32
}

// -----

// CHECK: verify_target.mlir:[[# @LINE + 2]]:8: error: 'gpuc.atomic_rmw' op is an atomic on i16; OpenCL has atomics on i32, i64, f32 and f64 only
gpuc.func @k(%p: !gpuc.ptr<i16, global>, %v: i16) kernel {
  %o = gpuc.atomic_rmw add %p, %v : !gpuc.ptr<i16, global>
  gpuc.return
}
