// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s

// CHECK: @shared.shared = internal addrspace(3) global [64 x float] undef, align 16
// CHECK: @shared.shared.1 = internal addrspace(3) global [8 x i64] undef, align 8

// Addresses are GEPs on pointers that keep their address space (ptx: global
// is 1, shared 3, generic 0); never ptrtoint/inttoptr.
// CHECK-LABEL: define ptx_kernel void @memory(ptr addrspace(1) %p, i64 %i, float %v)
// CHECK: [[A:%.*]] = getelementptr inbounds float, ptr addrspace(1) %p, i64 %i
// CHECK-NEXT: %x = load float, ptr addrspace(1) [[A]], align 4
// CHECK: [[B:%.*]] = getelementptr inbounds float, ptr addrspace(1) %p, i64 %i
// CHECK-NEXT: store float %v, ptr addrspace(1) [[B]], align 4
// CHECK: %q = getelementptr inbounds float, ptr addrspace(1) %p, i64 %i
// CHECK: store float %x, ptr addrspace(1) %q, align 4
// CHECK: %g = addrspacecast ptr addrspace(1) %p to ptr
// CHECK: load float, ptr %g, align 4
// CHECK-NOT: ptrtoint
// CHECK-NOT: inttoptr
gpuc.func @memory(%p: !gpuc.ptr<f32, global>, %i: index, %v: f32) kernel {
  %x = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  %q = gpuc.offset %p[%i] : !gpuc.ptr<f32, global>
  gpuc.store %x, %q : !gpuc.ptr<f32, global>
  %g = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, generic>
  %y = gpuc.load %g : !gpuc.ptr<f32, generic>
  gpuc.return
}

// A shared allocation is an internal, uninitialized global in the shared
// address space (named after its function), aligned as asked, one per op;
// the globals come first in the module, see the top of this file.
// CHECK-LABEL: define ptx_kernel void @shared(i64 %t)
// CHECK: getelementptr inbounds float, ptr addrspace(3) @shared.shared, i64 %t
// CHECK: getelementptr inbounds i64, ptr addrspace(3) @shared.shared.1, i64 %t
gpuc.func @shared(%t: index) kernel {
  %a = gpuc.shared_alloc 64 align 16 : !gpuc.ptr<f32, shared>
  %b = gpuc.shared_alloc 8 : !gpuc.ptr<i64, shared>
  %x = gpuc.load %a[%t] : !gpuc.ptr<f32, shared>
  %y = gpuc.load %b[%t] : !gpuc.ptr<i64, shared>
  gpuc.return
}

// Atomics keep the op's ordering (relaxed is monotonic) at the device scope
// (CUDA's default); float add is fadd; compare-exchange returns the old value.
// A kernel's shared pointer parameter is its part of the dynamic shared window.
// CHECK-LABEL: define ptx_kernel void @atomics(ptr addrspace(1) %ip, ptr addrspace(3) %fp, i32 %v, float %f)
// CHECK: %fp.window = getelementptr i8, ptr addrspace(3) @__gpuc_dynamic_shared, i64 %fp.offset
// CHECK: atomicrmw add ptr addrspace(1) {{%.*}}, i32 %v syncscope("device") monotonic
// CHECK: atomicrmw umax ptr addrspace(1) %ip, i32 %v syncscope("device") seq_cst
// CHECK: atomicrmw xchg ptr addrspace(1) %ip, i32 %v syncscope("device") acq_rel
// CHECK: atomicrmw fadd ptr addrspace(3) %fp.window, float %f syncscope("device") monotonic
// CHECK: [[PAIR:%.*]] = cmpxchg ptr addrspace(1) %ip, i32 %v, i32 0 syncscope("device") acquire acquire
// CHECK: %old = extractvalue { i32, i1 } [[PAIR]], 0
gpuc.func @atomics(%ip: !gpuc.ptr<i32, global>, %fp: !gpuc.ptr<f32, shared>, %v: i32, %f: f32) kernel {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %0 = gpuc.atomic_rmw add %ip[%c1], %v : !gpuc.ptr<i32, global>
  %1 = gpuc.atomic_rmw umax %ip, %v seq_cst : !gpuc.ptr<i32, global>
  %2 = gpuc.atomic_rmw exchange %ip, %v acq_rel : !gpuc.ptr<i32, global>
  %3 = gpuc.atomic_rmw add %fp, %f : !gpuc.ptr<f32, shared>
  %old = gpuc.atomic_cmpxchg %ip, %v, %zero acquire : !gpuc.ptr<i32, global>
  gpuc.return
}
