// A barrier-free kernel whose body is guarded by `global_id x < n`: the launch
// entry computes n once per row of the grid, runs thread x of each block of
// the row only up to it, and assumes the guard for each thread it runs, so
// LLVM drops the guard and vectorizes the thread loop without masked loads
// and stores.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=native}' | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: define void @__gpuc_launch_saxpy(
// CHECK:       segment.body:
// CHECK:         %n_index = sext i32 %n to i64
// CHECK:       block.x.body:
// CHECK:         [[FIRST:%.+]] = mul nuw nsw i64 %block.x, [[BDX:%.+]]
// CHECK:         [[LEFT:%.+]] = sub i64 %n_index, [[FIRST]]
// CHECK:         [[FEWER:%.+]] = select i1 {{%.+}}, i64 [[LEFT]], i64 [[BDX]]
// CHECK:         [[SOME:%.+]] = icmp ult i64 [[FIRST]], %n_index
// CHECK:         [[COUNT:%.+]] = select i1 [[SOME]], i64 [[FEWER]], i64 0
// CHECK:       thread.x.head:
// CHECK:         icmp ult i64 %thread.x, [[COUNT]]
// CHECK:       thread.x.body:
// CHECK:         [[GID:%.+]] = add nuw nsw i64 [[FIRST]], %thread.x
// CHECK:         [[HOLDS:%.+]] = icmp ult i64 [[GID]], %n_index
// CHECK:         call void @llvm.assume(i1 [[HOLDS]])
// CHECK:         call void @saxpy(

// OPT-LABEL: define void @__gpuc_launch_saxpy(
// OPT-NOT:     llvm.masked
// OPT:         store <{{[0-9]+}} x float>
// OPT-NOT:     llvm.masked
gpuc.func @saxpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                 %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %yi = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
