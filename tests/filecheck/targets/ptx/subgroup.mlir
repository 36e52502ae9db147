// REQUIRES: ptxas
// Subgroup ops on ptx: a shuffle reads the source lane with `shfl.sync.idx`
// (clamp 31) over the lanes the thread's warp has (its member mask: all 32,
// or fewer in a block's last warp, as vote.sync's), a 64-bit one as two
// 32-bit halves; subgroup_reduce is five steps down of such shuffles, each
// reading only a lane that exists, and lane 0's result read by every lane;
// ptxas accepts the PTX.
// RUN: gpuc compile %s --target ptx --validate -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: gpuc-opt %s -t 'llvm{target=ptx}' | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: .visible .entry shuffle(
// CHECK: selp.b32 [[MASK:%r[0-9]+]], -1, %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK-COUNT-3: shfl.sync.idx.b32 {{.*}}, 31, [[MASK]];
// CHECK-NOT: shfl
// CHECK: ret;
// LLVM-LABEL: define ptx_kernel void @shuffle(
// LLVM: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
// LLVM: [[MASK:%[^ ]+]] = select i1 %{{.*}}, i32 -1, i32 %{{.*}}
// LLVM: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 [[MASK]], i32 %{{.*}}, i32 %{{.*}}, i32 31)
// LLVM-NOT: shfl.sync.idx.i32(i32 -1
gpuc.func @shuffle(%p: !gpuc.ptr<f32, global>, %q: !gpuc.ptr<f64, global>, %o: i32) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  %d = gpuc.load %q[%t] : !gpuc.ptr<f64, global>
  %r, %v = gpuc.shuffle xor %x, %o : f32
  %c16 = arith.constant 16 : i32
  %e, %w = gpuc.shuffle down %d, %o, width %c16 : f64
  gpuc.store %r, %p[%t] : !gpuc.ptr<f32, global>
  gpuc.store %e, %q[%t] : !gpuc.ptr<f64, global>
  gpuc.return
}

// CHECK-LABEL: .visible .entry reduce(
// CHECK: selp.b32 [[MASK:%r[0-9]+]], -1, %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK-COUNT-5: shfl.sync.idx.b32 {{.*}}, 31, [[MASK]];
// CHECK-NEXT: max.s32
// CHECK-NEXT: selp.b32
// CHECK-NEXT: shfl.sync.idx.b32 {{.*}}, 0, 31, [[MASK]];
// CHECK-NOT: shfl
// CHECK: ret;
// LLVM-LABEL: define ptx_kernel void @reduce(
// LLVM-COUNT-5: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 [[MASK:%[^ ]+]], i32 %{{.*}}, i32 %{{.*}}, i32 31)
// LLVM: call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 [[MASK]], i32 %{{.*}}, i32 0, i32 31)
gpuc.func @reduce(%p: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %x = gpuc.load %p[%t] : !gpuc.ptr<i32, global>
  %s = gpuc.subgroup_reduce max %x : i32
  %sid = gpuc.subgroup_id
  gpuc.store %s, %p[%sid] : !gpuc.ptr<i32, global>
  gpuc.return
}
