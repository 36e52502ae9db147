// The block and grid sizes gpu-kernel-outlining records on a kernel are read
// from every MLIR: MLIR 16's `gpu.known_block_size` attributes and the
// `known_block_size` properties of MLIR 19 and later. The known block size is
// emitted (`.reqntid` in PTX, LocalSize in SPIR-V).
// RUN: gpuc-opt -p import %S/Inputs/versions/known_sizes_mlir16_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/known_sizes_mlir19_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/known_sizes_mlir22_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import -t ptx %S/Inputs/versions/known_sizes_mlir16_generic.mlir | filecheck %s --check-prefix=PTX
// RUN: gpuc-opt -p import -t ptx %S/Inputs/versions/known_sizes_mlir19_generic.mlir | filecheck %s --check-prefix=PTX
// RUN: gpuc-opt -p import -t ptx %S/Inputs/versions/known_sizes_mlir22_generic.mlir | filecheck %s --check-prefix=PTX
// REQUIRES: spirv-dis
// RUN: gpuc-opt -p import -t spirv %S/Inputs/versions/known_sizes_mlir19_generic.mlir | filecheck %s --check-prefix=SPIRV
// RUN: gpuc-opt -p import -t spirv %S/Inputs/versions/known_sizes_mlir22_generic.mlir | filecheck %s --check-prefix=SPIRV
// A property and an attribute that agree are one known size; ones that
// disagree are refused, and so is a spirv.entry_point_abi that disagrees.
// RUN: sed 's/{gpu.kernel, /{gpu.kernel, gpu.known_block_size = array<i32: 8, 2, 1>, /' %S/Inputs/versions/known_sizes_mlir22_generic.mlir | gpuc-opt -p import | filecheck %s
// RUN: sed 's/{gpu.kernel, /{gpu.kernel, gpu.known_block_size = array<i32: 4, 2, 1>, /' %S/Inputs/versions/known_sizes_mlir22_generic.mlir | not gpuc-opt -p import 2>&1 | filecheck %s --check-prefix=DISAGREE
// RUN: sed 's/{gpu.kernel, /{gpu.kernel, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 1, 1]>, /' %S/Inputs/versions/known_sizes_mlir22_generic.mlir | not gpuc-opt -p import 2>&1 | filecheck %s --check-prefix=ABI

// CHECK-LABEL: gpuc.func @fill_kernel(%arg0: !gpuc.ptr<i32, global>) kernel
// CHECK-SAME: gpu.known_block_size = array<i32: 8, 2, 1>, gpu.known_grid_size = array<i32: 3, 1, 1>
// CHECK-NOT: known_block_size
// CHECK-NOT: gpu.launch

// PTX-LABEL: .visible .entry fill_kernel(
// PTX: .reqntid 8, 2, 1
// PTX-NEXT: {

// SPIRV: OpExecutionMode %fill_kernel LocalSize 8 2 1

// DISAGREE: <stdin>:13:5: error: 'gpu.func' op has known_block_size = array<i32: 8, 2, 1> (MLIR 19 and later's property) and gpu.known_block_size = array<i32: 4, 2, 1> (MLIR 16's attribute), which disagree; keep one

// ABI: error: 'gpu.func' op @fill_kernel: spirv.entry_point_abi gives workgroup size [16, 1, 1] but gpu.known_block_size is [8, 2, 1]
