// memref views as mlir-opt-16 and -22 print them: a subview, a dynamic
// subview, a rank-reducing one, a reinterpret_cast and a subview of workgroup
// memory address the element `offset + i * s0 + j * s1` from the base
// pointer; a view passed to a helper is a pointer to its first element (the
// base plus the layout's offset), the helper applies its parameter's strides. Compiled for every target (ptxas and
// spirv-val where installed). memory_space_cast (MLIR 17+): between two
// spellings of global memory it is the same pointer; workgroup to the default
// space (which gpuc reads as global) is refused at the op.
// RUN: gpuc-opt -p import %S/Inputs/versions/memref_views_mlir16_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/memref_views_mlir22_generic.mlir | filecheck %s
// RUN: gpuc compile %S/Inputs/versions/memref_views_mlir16_generic.mlir --target native -o %t.o
// RUN: gpuc compile %S/Inputs/versions/memref_views_mlir22_generic.mlir --target amdgpu -o %t.hsaco
// RUN: %if ptxas %{ gpuc compile %S/Inputs/versions/memref_views_mlir16_generic.mlir --target ptx --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %S/Inputs/versions/memref_views_mlir22_generic.mlir --target spirv --validate -o %t.spv %}
// RUN: gpuc compile %root/tests/memref_views_kernels.mlir --target native -o %t.o
// RUN: %if ptxas %{ gpuc compile %root/tests/memref_views_kernels.mlir --target ptx --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %root/tests/memref_views_kernels.mlir --target spirv --validate -o %t.spv %}
// RUN: not gpuc-opt -p import %S/Inputs/versions/memref_space_cast_mlir22_generic.mlir 2>&1 | filecheck %s --check-prefix=CAST
// RUN: %if mlir-opt-16 %{ mlir-opt-16 --mlir-print-op-generic %S/Inputs/versions/memref_views.mlir | gpuc-opt -p import | filecheck %s %}
// RUN: %if mlir-opt-22 %{ mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/memref_views.mlir | gpuc-opt -p import | filecheck %s %}
// RUN: %if mlir-opt-22 %{ mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/memref_space_cast.mlir | not gpuc-opt -p import 2>&1 | filecheck %s --check-prefix=CAST %}

// The helper's parameter memref<4x8xf32, strided<[96, 2], offset: 68>>.
// CHECK-LABEL: gpuc.func private @at(
// CHECK-SAME:    %[[V:.*]]: !gpuc.ptr<f32, global>, %[[I:.*]]: index, %[[J:.*]]: index) -> f32 helper {
// CHECK-NEXT:    %[[S0:.*]] = arith.constant 96 : index
// CHECK-NEXT:    %[[A:.*]] = arith.muli %[[I]], %[[S0]] : index
// CHECK-NEXT:    %[[S1:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C:.*]] = arith.muli %[[J]], %[[S1]] : index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[A]], %[[C]] : index
// CHECK-NEXT:    gpuc.load %[[V]][%[[E]]] : !gpuc.ptr<f32, global>

// CHECK-LABEL: gpuc.func @views(
// CHECK-SAME:    %[[A:.*]]: !gpuc.ptr<f32, global>, %[[OFF:.*]]: index, %[[OUT:.*]]: !gpuc.ptr<f32, global>) kernel
// CHECK:         %[[W:.*]] = gpuc.shared_alloc 128 : !gpuc.ptr<f32, shared>
// CHECK:         %[[X:.*]] = gpuc.thread_id x
// CHECK:         %[[Y:.*]] = gpuc.thread_id y
// The subview's first element, %a + 68, is what the helper gets.
// CHECK:         %[[O:.*]] = arith.constant 68 : index
// CHECK-NEXT:    %[[FIRST:.*]] = gpuc.offset %[[A]][%[[O]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.call @at(%[[FIRST]], %[[Y]], %[[X]])
// subview %a[%off, 1] [4, 8] [1, 3]: offset off * 32 + 1, strides [32, 3].
// CHECK:         %[[R:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[RO:.*]] = arith.muli %[[OFF]], %[[R]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DO:.*]] = arith.addi %[[RO]], %[[ONE]] : index
// CHECK-NEXT:    %[[S0:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[YS:.*]] = arith.muli %[[Y]], %[[S0]] : index
// CHECK-NEXT:    %[[P:.*]] = arith.addi %[[DO]], %[[YS]] : index
// CHECK-NEXT:    %[[S1:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[XS:.*]] = arith.muli %[[X]], %[[S1]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.addi %[[P]], %[[XS]] : index
// CHECK-NEXT:    gpuc.load %[[A]][%[[Q]]] : !gpuc.ptr<f32, global>
// The rank-reducing row %a[%off, 0] [1, 32]: offset off * 32, stride 1.
// CHECK:         %[[RO2:.*]] = arith.muli %[[OFF]], %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.muli
// CHECK-NEXT:    %[[K:.*]] = arith.addi
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[RO2]], %[[K]] : index
// CHECK-NEXT:    gpuc.load %[[A]][%[[E]]] : !gpuc.ptr<f32, global>
// reinterpret_cast to offset: [5], sizes: [4, 8], strides: [11, 1].
// CHECK:         %[[ELEVEN:.*]] = arith.constant 11 : index
// CHECK-NEXT:    %[[YE:.*]] = arith.muli %[[Y]], %[[ELEVEN]] : index
// CHECK-NEXT:    %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[F:.*]] = arith.addi %[[FIVE]], %[[YE]] : index
// CHECK-NEXT:    %[[G:.*]] = arith.addi %[[F]], %[[X]] : index
// CHECK-NEXT:    gpuc.load %[[A]][%[[G]]] : !gpuc.ptr<f32, global>
// The workgroup subview %w[2, 4] [4, 8] [1, 1]: offset 36, strides [16, 1].
// CHECK:         %[[WO:.*]] = arith.constant 36 : index
// CHECK-NEXT:    %[[WA:.*]] = arith.addi %[[WO]], %{{.*}} : index
// CHECK-NEXT:    %[[WB:.*]] = arith.addi %[[WA]], %[[X]] : index
// CHECK-NEXT:    gpuc.store %{{.*}}, %[[W]][%[[WB]]] : !gpuc.ptr<f32, shared>
// CHECK-NEXT:    gpuc.barrier

// CAST-NOT: error: {{.*}}@same_space
// CAST: {{.*}}:{{[0-9]+}}:12: error: 'memref.memory_space_cast' op casts shared memory to global memory in @to_default, which no pointer conversion does (gpuc reads no memory space and 0 as global); cast to or from generic memory (#gpuc<space generic>)
