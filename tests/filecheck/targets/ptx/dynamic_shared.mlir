// A kernel's shared pointer parameter receives its byte offset in the
// launch's dynamic shared memory (gpuc.SharedMemory on the host): the kernel
// adds it to the window's `.extern .shared` array.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK: .extern .shared .align 16 .b8 __gpuc_dynamic_shared[];
// CHECK-LABEL: .visible .entry k(
// CHECK: .param .u64 .ptr .shared .align 1 k_param_1
// CHECK: ld.param.b64 [[OFFSET:%rd[0-9]+]], [k_param_1];
// CHECK: mov.b64 [[WINDOW:%rd[0-9]+]], __gpuc_dynamic_shared;
// CHECK: add.s64 [[AT:%rd[0-9]+]], [[WINDOW]], [[OFFSET]];
// CHECK: st.shared.b32 [[[AT]]]
gpuc.func @k(%x: f32, %tmp: !gpuc.ptr<f32, shared>) kernel {
  gpuc.store %x, %tmp : !gpuc.ptr<f32, shared>
  gpuc.return
}
