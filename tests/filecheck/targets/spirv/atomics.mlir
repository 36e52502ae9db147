// REQUIRES: spirv-dis
// Float atomic add uses SPV_EXT_shader_atomic_float_add; float atomic max has
// no instruction gpuc enables, so it is a compare-exchange loop.
// RUN: gpuc-opt %s -t spirv | FileCheck %s

// CHECK: OpCapability AtomicFloat32AddEXT
// CHECK: OpExtension "SPV_EXT_shader_atomic_float_add"
// CHECK: OpAtomicFAddEXT %float
// CHECK: OpAtomicCompareExchange %uint
// CHECK: OpAtomicIAdd %uint
gpuc.func @k(%f: !gpuc.ptr<f32, global>, %i: !gpuc.ptr<i32, shared>, %v: f32, %n: i32) kernel {
  %a = gpuc.atomic_rmw add %f, %v : !gpuc.ptr<f32, global>
  %m = gpuc.atomic_rmw max %f, %a : !gpuc.ptr<f32, global>
  %b = gpuc.atomic_rmw add %i, %n : !gpuc.ptr<i32, shared>
  gpuc.return
}
