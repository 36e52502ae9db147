// Warp matrix ops on native: each thread holds the whole tile, an array of
// row vectors (`[16 x <16 x T>]`); the multiply-accumulate is 256 vector
// multiply-adds in f32; the threads of a warp run one after another, so a
// store writes the tile from the warp's last lane only (lane = linear index
// mod 32, the last lane of a block's last warp where it has fewer). A
// fragment live across a barrier is kept in the block's context storage
// (one 1024-byte slot a thread).
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @mma(ptr %state, ptr %a, ptr %c, i64 %i, i64 %ld)
// CHECK: %fa = insertvalue [16 x <16 x half>]
// CHECK: %fb = insertvalue [16 x <16 x half>]
// CHECK: %fc = insertvalue [16 x <16 x float>]
// CHECK-COUNT-256: fadd <16 x float>
// CHECK: %fd = insertvalue [16 x <16 x float>]
// CHECK: urem i64 %{{.*}}, 32
// CHECK: [[LAST:%.+]] = icmp eq i64
// CHECK: select i1 [[LAST]], i64 0, i64 16
// CHECK: store float

// CHECK-LABEL: define internal void @epilogue(ptr %state, half %x, ptr %h, ptr %o, i64 %i)
// CHECK: %s = insertvalue [16 x <16 x half>]
// CHECK-COUNT-16: fcmp ogt <16 x half>
// CHECK-COUNT-16: fpext <16 x half> %{{.*}} to <16 x float>
// CHECK: %w = insertvalue [16 x <16 x float>]

// CHECK-LABEL: define internal void @across(ptr %state, ptr %c, ptr %d)
// CHECK: store [16 x <16 x float>] %fc, ptr
// CHECK: load [16 x <16 x float>], ptr
gpuc.func @mma(%a: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %i: index, %ld: index) kernel {
  %fa = gpuc.matrix_load %a[%i], %ld : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
  %fb = gpuc.matrix_load %a[%i], %ld transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
  %fc = gpuc.matrix_load %c[%i], %ld : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %fd = gpuc.matrix_mma %fa, %fb, %fc b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %fd, %c[%i], %ld : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

gpuc.func @epilogue(%x: f16, %h: !gpuc.ptr<f16, global>, %o: !gpuc.ptr<f32, global>, %i: index) kernel {
  %s = gpuc.matrix_splat %x : f16 -> !gpuc.fragment<16x16xf16, c>
  %y = gpuc.matrix_load %h[%i], %i : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  %m = gpuc.matrix_elementwise maxf %s, %y : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  %w = gpuc.matrix_elementwise extf %m : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %w, %o[%i], %i : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

gpuc.func @across(%c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %fc = gpuc.matrix_load %c[%c0], %c16 : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  gpuc.barrier
  gpuc.matrix_store %fc, %d[%c0], %c16 : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
