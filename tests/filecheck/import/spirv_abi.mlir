// spirv.entry_point_abi's workgroup size is the kernel's known block size;
// spirv.target_env (MLIR's SPIR-V environment) is dropped.
// RUN: gpuc-opt -p import %S/Inputs/versions/spirv_abi_mlir16_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/spirv_abi_mlir22_generic.mlir | filecheck %s
// RUN: sed 's/8, 1, 1\]/8, 1, 1], subgroup_size = 16/' %S/Inputs/versions/spirv_abi_mlir16_generic.mlir | not gpuc-opt -p import 2>&1 | filecheck %s --check-prefix=SUBGROUP

// CHECK-LABEL: builtin.module {
// CHECK-NOT: spirv.
// CHECK: gpuc.func @double(%arg0: !gpuc.ptr<f32, global>) kernel attributes {{{.*}}gpu.known_block_size = array<i32: 8, 1, 1>
// CHECK-NOT: spirv.

// SUBGROUP: error: 'gpu.func' op @double: #spirv.entry_point_abi<workgroup_size = [8, 1, 1], subgroup_size = 16>: subgroup_size cannot be honoured (gpuc honours workgroup_size only)
