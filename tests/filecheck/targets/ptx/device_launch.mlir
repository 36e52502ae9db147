// A device-side launch goes through the CUDA device runtime the way nvcc
// emits `<<<>>>` in device code: a parameter buffer for the child kernel, the
// arguments stored at their natural alignment, then the launch; the child
// stays a `.visible .entry` next to its parent.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK: .extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2
// CHECK-NEXT: (
// CHECK-NEXT: .param .b64 __cudaCDP2GetParameterBufferV2_param_0,
// CHECK-NEXT: .param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_1[12],
// CHECK-NEXT: .param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_2[12],
// CHECK-NEXT: .param .b32 __cudaCDP2GetParameterBufferV2_param_3
// CHECK: .extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2
// CHECK: .visible .entry parent(
// CHECK: mov.b64 {{%rd[0-9]+}}, child;
// CHECK: call.uni (retval0), __cudaCDP2GetParameterBufferV2,
// CHECK: st.b64 [{{%rd[0-9]+}}],
// CHECK: st.b32 [{{%rd[0-9]+}}+8],
// CHECK: call.uni (retval0), __cudaCDP2LaunchDeviceV2,
// CHECK: .visible .entry child(
gpuc.func @parent(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpuc.launch @child grid(%c1) block(%c256) (%x, %n) : (!gpuc.ptr<f32, global>, i32)
  gpuc.return
}
gpuc.func @child(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  gpuc.return
}
