// RUN: gpuc-opt -p gpu-kernel-outlining %s | filecheck %s
// RUN: gpuc-opt -p import %s | filecheck %s --check-prefix=IMPORT

// A launch using host-side views (what xDSL's stencil lowering writes): the
// subview of a subview and the reinterpret_cast are cloned into the kernel,
// which takes the buffers themselves (named after them) and the dynamic
// offset; the kernel carries the launch's location.
// CHECK-LABEL: func.func @f(%a: memref<16x16xf32>, %b: memref<64xf32>, %o: index)
// CHECK:         "gpu.launch_func"({{.*}}, %a, %o, %b) <{kernel = @f_kernel::@f_kernel
// CHECK:         "gpu.func"() <{function_type = (memref<16x16xf32>, index, memref<64xf32>) -> (), kernel}> ({
// CHECK-NEXT:    ^{{.*}}(%a: memref<16x16xf32>, %o: index, %b: memref<64xf32>):
// CHECK:         "gpu.block_dim"() <{dimension = #gpu<dim z>}>
// CHECK-NEXT:    %[[INNER:.*]] = memref.subview %a[%o, 2] [8, 8] [1, 1]
// CHECK-NEXT:    %[[VIEW:.*]] = memref.subview %[[INNER]][1, 1] [4, 4] [2, 1]
// CHECK-NEXT:    %[[FLAT:.*]] = memref.reinterpret_cast %b to offset: [3]
// CHECK-NEXT:    memref.load %[[FLAT]]
// CHECK-NEXT:    memref.store %{{.*}}, %[[VIEW]]

// IMPORT: gpuc.func @f_kernel(%a: !gpuc.ptr<f32, global>, %o: index, %b: !gpuc.ptr<f32, global>) kernel
// IMPORT-SAME: gpuc.memref_params = [array<i64: 0, 16, 16>, array<i64: 2, 64>]
// IMPORT-NOT:  gpuc.memref_layouts
"func.func"() <{function_type = (memref<16x16xf32>, memref<64xf32>, index) -> (), sym_name = "f"}> ({
^bb0(%a: memref<16x16xf32>, %b: memref<64xf32>, %o: index):
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
  %inner = "memref.subview"(%a, %o) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 2>, static_sizes = array<i64: 8, 8>, static_strides = array<i64: 1, 1>}> : (memref<16x16xf32>, index) -> memref<8x8xf32, strided<[16, 1], offset: ?>>
  %view = "memref.subview"(%inner) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1, 1>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 2, 1>}> : (memref<8x8xf32, strided<[16, 1], offset: ?>>) -> memref<4x4xf32, strided<[32, 1], offset: ?>>
  %flat = "memref.reinterpret_cast"(%b) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 3>, static_sizes = array<i64: 4>, static_strides = array<i64: 2>}> : (memref<64xf32>) -> memref<4xf32, strided<[2], offset: 3>>
  "gpu.launch"(%c1, %c1, %c1, %c4, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb1(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
    %v = "memref.load"(%flat, %tx) : (memref<4xf32, strided<[2], offset: 3>>, index) -> f32
    "memref.store"(%v, %view, %tx, %tx) : (f32, memref<4x4xf32, strided<[32, 1], offset: ?>>, index, index) -> ()
    "gpu.terminator"() : () -> ()
  }) : (index, index, index, index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
