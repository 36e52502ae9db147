// A cf.assert on spirv: the kernel takes the error record first (`errors` in
// its finalization record, with the id and message of each assert it can
// report); the failing thread claims it with a
// compare-exchange of word 0 from 0 to the assert's id, writes its block and
// thread index if it won, and returns (a helper with a zero result, after
// setting the thread's own failure flag, which its caller tests after the
// call to return too; the flag is on the kernel's stack).
// RUN: gpuc-opt %s -p 'gpuc-pipeline{target=spirv}' | FileCheck %s --check-prefix=RECORD
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s

// RECORD: gpuc.func @k(%p: !gpuc.ptr<i32, global>, %n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", cconv = "spir_kernel", errors = {1 = "{{.*}}asserts.mlir:41:3: assertion failed: v must be positive"}, prints, shared = 0>}

// CHECK-LABEL: define internal spir_func i32 @check(ptr addrspace(1) %gpuc.errors, ptr %gpuc.failed, i32 %v)
// CHECK: assert.fail:
// CHECK: %[[PAIR:.+]] = cmpxchg ptr addrspace(1) %gpuc.errors, i32 0, i32 1 syncscope("device") monotonic monotonic
// CHECK: %[[WON:.+]] = extractvalue { i32, i1 } %[[PAIR]], 1
// CHECK: br i1 %[[WON]], label %assert.fail.if, label %assert.fail.endif
// CHECK: assert.fail.if:
// CHECK: call i64 @llvm.spv.group.id.i64(i32 0)
// CHECK: getelementptr inbounds i32, ptr addrspace(1) %gpuc.errors, i32 1
// CHECK: call i64 @llvm.spv.thread.id.in.group.i64(i32 2)
// CHECK: getelementptr inbounds i32, ptr addrspace(1) %gpuc.errors, i32 6
// CHECK: assert.fail.endif:
// CHECK-NEXT: store i32 1, ptr %gpuc.failed
// CHECK-NEXT: ret i32 0

// CHECK-LABEL: define spir_kernel void @k(ptr addrspace(1) %gpuc.errors, ptr addrspace(1) %p, i32 %n)
// CHECK: %gpuc.failed = alloca i32
// CHECK-NEXT: store i32 0, ptr %gpuc.failed
// CHECK: %w = call spir_func i32 @check(ptr addrspace(1) %gpuc.errors, ptr %gpuc.failed, i32 %n)
// CHECK-NEXT: %[[FLAG:.+]] = load i32, ptr %gpuc.failed
// CHECK: %[[FAILED:.+]] = icmp ne i32 %[[FLAG]], 0
// CHECK: br i1 %[[FAILED]], label %entry.if, label %entry.endif
// CHECK: entry.if:
// CHECK-NEXT: ret void
// CHECK: entry.endif:
// CHECK-NEXT: store i32 %w, ptr addrspace(1) %p
gpuc.func private @check(%v: i32) -> i32 helper {
  %z = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %v, %z : i32
  cf.assert %ok, "v must be positive"
  gpuc.return %v : i32
}
gpuc.func @k(%p: !gpuc.ptr<i32, global>, %n: i32) kernel {
  %w = gpuc.call @check(%n) : (i32) -> i32
  gpuc.store %w, %p : !gpuc.ptr<i32, global>
  gpuc.return
}
