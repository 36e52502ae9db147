// A cf.assert on ptx: the kernel takes the error record as its first
// parameter, and a failing thread claims it with atom.cas and returns
// (no trap: a trap would leave the CUDA context unusable, record and all);
// before that it prints its line in CUDA's format with vprintf.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK: .extern .func (.param .b32 func_retval0) vprintf
// CHECK-LABEL: .visible .entry k(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 k_param_0,
// CHECK-NEXT: .param .u64 .ptr .global .align 1 k_param_1,
// CHECK-NEXT: .param .u32 k_param_2
// CHECK-NEXT: )
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.z;
// CHECK: call.uni (retval0), vprintf,
// CHECK: atom.relaxed.gpu.global.cas.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 0, 1;
// CHECK-NOT: trap
// CHECK: ret;
gpuc.func @k(%p: !gpuc.ptr<i32, global>, %n: i32) kernel {
  %z = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %n, %z : i32
  cf.assert %ok, "n must be positive"
  gpuc.store %n, %p : !gpuc.ptr<i32, global>
  gpuc.return
}
