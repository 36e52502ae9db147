"""docs/frontends.md's "Op by op" tables, kept honest against the code.

The tables are parsed from the markdown. Every op the code handles (the
import's op lists in gpuc/transforms/foreign/checks.py, the translators of the
dialects gpuc lowers itself, the host-code ops the outlining passes take) has
a row; every op of a dialect gpuc registers for other frontends (registry.py
`DIALECTS`) has one, accepted or refused; a refused op, compiled in a small
kernel, gets the diagnostic its row gives; a sample of each dialect's accepted
ops compiles. A new op without a row, a row the code contradicts, or a
diagnostic that changed fails here.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import Path

import pytest
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import DiagnosticException

from gpuc.compiler import compile_module
from gpuc.registry import DIALECTS, lazy

DOC = Path(__file__).resolve().parent.parent / "docs" / "frontends.md"
FOREIGN = (
    "func",
    "arith",
    "math",
    "scf",
    "cf",
    "vector",
    "memref",
    "gpu",
    "amdgpu",
    "affine",
)
"""The dialects of DIALECTS whose ops other frontends write (builtin and
gpuc are gpuc's own; spirv has attributes only, in their own table)."""
HOST_OPS = {
    "gpu.launch",
    "gpu.terminator",
    "scf.parallel",
    "scf.reduce",
    "scf.reduce.return",
}
"""What `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining` take in
host code (mapped scf.parallel nests, gpu.launch regions), before the import
proper."""
HOST_DROPPED = {"gpu.launch_func"}
"""Host code left around the gpu.modules, which the import drops."""

KERNEL = """\
func.func @k(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: f32, %arg3: index)
    attributes {gpu.kernel} {
BODY
  "func.return"() : () -> ()
}
"""
"""The kernel @k each snippet is compiled in: two buffers, a float, an index."""


def in_kernel(body: str) -> str:
    return KERNEL.replace("BODY", body)


def gpu_module(body: str, attrs: str = "") -> str:
    """`body` in gpu.func @k of gpu.module @m, in generic form."""
    return f"""\
"builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<16xf32>, i32, f32, index) -> ()}}> ({{
    ^bb0(%arg0: memref<16xf32>, %arg1: i32, %arg2: f32, %arg3: index):
{body}
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, sym_name = "k"{attrs}}} : () -> ()
  }}) : () -> ()
}}) {{gpu.container_module}} : () -> ()
"""


# A small kernel holding each refused op (or construct), keyed by the op's
# name or, for a row that refuses an op in some case only, by the row's first
# cell without backticks. The ops are in generic form, as mlir-opt-22
# --mlir-print-op-generic prints them (MLIR 16's where they differ: noted).
REFUSED: dict[str, str] = {
    "gpu.alloc": in_kernel(
        '%0 = "gpu.alloc"() <{operandSegmentSizes = array<i32: 0, 0, 0>}> '
        ": () -> memref<16xf32>"
    ),
    "gpu.dealloc": in_kernel('"gpu.dealloc"(%arg0) : (memref<16xf32>) -> ()'),
    "gpu.memcpy": in_kernel(
        '"gpu.memcpy"(%arg0, %arg1) : (memref<16xf32>, memref<16xf32>) -> ()'
    ),
    "gpu.host_register": in_kernel(
        '%0 = "memref.cast"(%arg0) : (memref<16xf32>) -> memref<*xf32>\n'
        '"gpu.host_register"(%0) : (memref<*xf32>) -> ()'
    ),
    "gpu.host_unregister": in_kernel(
        '%0 = "memref.cast"(%arg0) : (memref<16xf32>) -> memref<*xf32>\n'
        '"gpu.host_unregister"(%0) : (memref<*xf32>) -> ()'
    ),
    "gpu.set_default_device": in_kernel(
        '%0 = "arith.constant"() <{value = 0 : i32}> : () -> i32\n'
        '"gpu.set_default_device"(%0) : (i32) -> ()'
    ),
    "gpu.wait": in_kernel('"gpu.wait"() : () -> ()'),
    "gpu.launch_func": gpu_module(
        '"gpu.launch_func"(%arg3, %arg3, %arg3, %arg3, %arg3, %arg3) <{kernel = '
        "@m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, "
        "0, 0, 0>}> : (index, index, index, index, index, index) -> ()"
    ),
    "gpu.dynamic_shared_memory, which gpuc's gpu dialect lacks": in_kernel(
        '%0 = "gpu.dynamic_shared_memory"() : () -> '
        "memref<?xi8, #gpu.address_space<workgroup>>"
    ),
    "memref.alloca_scope": in_kernel(
        '"memref.alloca_scope"() ({\n'
        '  %0 = "memref.load"(%arg0, %arg3) : (memref<16xf32>, index) -> f32\n'
        '  "memref.alloca_scope.return"() : () -> ()\n'
        "}) : () -> ()"
    ),
    "memref.alloca_scope.return": in_kernel(
        '"memref.alloca_scope"() ({\n'
        '  "memref.alloca_scope.return"() : () -> ()\n'
        "}) : () -> ()"
    ),
    "memref.copy": in_kernel(
        '"memref.copy"(%arg0, %arg1) : (memref<16xf32>, memref<16xf32>) -> ()'
    ),
    "memref.extract_strided_metadata": in_kernel(
        '%0:4 = "memref.extract_strided_metadata"(%arg0) : (memref<16xf32>) -> '
        "(memref<f32>, index, index, index)"
    ),
    "memref.extract_aligned_pointer_as_index": in_kernel(
        '%0 = "memref.extract_aligned_pointer_as_index"(%arg0) : '
        "(memref<16xf32>) -> index"
    ),
    "memref.view": in_kernel(
        '%0 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<64xi8, #gpu.address_space<workgroup>>\n"
        '%1 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
        '%2 = "memref.view"(%0, %1) : (memref<64xi8, '
        "#gpu.address_space<workgroup>>, index) -> "
        "memref<16xf32, #gpu.address_space<workgroup>>"
    ),
    "memref.rank": in_kernel('%0 = "memref.rank"(%arg0) : (memref<16xf32>) -> index'),
    "memref.dma_start as MLIR prints it": in_kernel(
        '%0 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<16xf32, #gpu.address_space<workgroup>>\n"
        '%1 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<1xi32, #gpu.address_space<workgroup>>\n"
        '%2 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
        '"memref.dma_start"(%arg0, %2, %0, %2, %arg3, %1, %2) : (memref<16xf32>, '
        "index, memref<16xf32, #gpu.address_space<workgroup>>, index, index, "
        "memref<1xi32, #gpu.address_space<workgroup>>, index) -> ()"
    ),
    "memref.dma_wait": in_kernel(
        '%0 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<1xi32, #gpu.address_space<workgroup>>\n"
        '%1 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
        '"memref.dma_wait"(%0, %1, %arg3) : (memref<1xi32, '
        "#gpu.address_space<workgroup>>, index, index) -> ()"
    ),
    "math.ipowi": in_kernel(
        '%0 = "arith.constant"() <{value = 3 : i32}> : () -> i32\n'
        '%1 = "math.ipowi"(%0, %0) : (i32, i32) -> i32\n'
        '%2 = "arith.sitofp"(%1) : (i32) -> f32\n'
        '"memref.store"(%2, %arg0, %arg3) : (f32, memref<16xf32>, index) -> ()'
    ),
    "scf.parallel in device code": in_kernel(
        '%0 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
        '%1 = "arith.constant"() <{value = 1 : index}> : () -> index\n'
        '"scf.parallel"(%0, %arg3, %1) <{operandSegmentSizes = array<i32: 1, 1, 1, '
        "0>}> ({\n^bb0(%arg4: index):\n"
        '  "memref.store"(%arg2, %arg0, %arg4) : (f32, memref<16xf32>, index) -> ()\n'
        '  "scf.reduce"() : () -> ()\n'
        "}) : (index, index, index) -> ()"
    ),
    "vector.create_mask": in_kernel(
        '%0 = "arith.constant"() <{value = 2 : index}> : () -> index\n'
        '%1 = "vector.create_mask"(%0) : (index) -> vector<4xi1>'
    ),
    "vector.reduction": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4xf32>\n'
        '%1 = "vector.reduction"(%0) <{fastmath = #arith.fastmath<none>, kind = '
        "#vector.kind<add>}> : (vector<4xf32>) -> f32\n"
        '"memref.store"(%1, %arg0, %arg3) : (f32, memref<16xf32>, index) -> ()'
    ),
    # MLIR 16's form: MLIR 22 adds a `#vector.punctuation`, which xDSL lacks.
    "vector.print": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4xf32>\n'
        '"vector.print"(%0) : (vector<4xf32>) -> ()'
    ),
    "vector.maskedload": in_kernel(
        '%0 = "arith.constant"() <{value = dense<true> : vector<4xi1>}> : () -> '
        "vector<4xi1>\n"
        '%1 = "vector.broadcast"(%arg2) : (f32) -> vector<4xf32>\n'
        '%2 = "vector.maskedload"(%arg0, %arg3, %0, %1) : (memref<16xf32>, index, '
        "vector<4xi1>, vector<4xf32>) -> vector<4xf32>"
    ),
    "vector.maskedstore": in_kernel(
        '%0 = "arith.constant"() <{value = dense<true> : vector<4xi1>}> : () -> '
        "vector<4xi1>\n"
        '%1 = "vector.broadcast"(%arg2) : (f32) -> vector<4xf32>\n'
        '"vector.maskedstore"(%arg0, %arg3, %0, %1) : (memref<16xf32>, index, '
        "vector<4xi1>, vector<4xf32>) -> ()"
    ),
    "vector.transfer_read with a mask": in_kernel(
        '%0 = "arith.constant"() <{value = dense<true> : vector<4xi1>}> : () -> '
        "vector<4xi1>\n"
        '%1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = '
        "[false], operandSegmentSizes = array<i32: 1, 1, 1, 1>, permutation_map = "
        "affine_map<(d0) -> (d0)>}> : (memref<16xf32>, index, f32, vector<4xi1>) "
        "-> vector<4xf32>"
    ),
    "vector.transfer_write with a broadcast dimension": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<2x4xf32>\n'
        '"vector.transfer_write"(%0, %arg0, %arg3) <{in_bounds = [true, false], '
        "operandSegmentSizes = array<i32: 1, 1, 1, 0>, permutation_map = "
        "affine_map<(d0) -> (0, d0)>}> : (vector<2x4xf32>, memref<16xf32>, index) "
        "-> ()"
    ),
    "vector.contract of another kind": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4x4xf32>\n'
        '%1 = "vector.contract"(%0, %0, %0) <{indexing_maps = [affine_map<(d0, d1, '
        "d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, "
        "d1, d2) -> (d0, d1)>], iterator_types = [#vector.iterator_type<parallel>, "
        "#vector.iterator_type<parallel>, #vector.iterator_type<reduction>], kind "
        "= #vector.kind<xor>}> : (vector<4x4xf32>, vector<4x4xf32>, "
        "vector<4x4xf32>) -> vector<4x4xf32>"
    ),
    "vector.contract with maps whose results are not iteration dimensions": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4x4xf32>\n'
        '%1 = "vector.contract"(%0, %0, %0) <{indexing_maps = [affine_map<(d0, d1, '
        "d2) -> (d0, d2 + d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = "
        "[#vector.iterator_type<parallel>, #vector.iterator_type<parallel>, "
        "#vector.iterator_type<reduction>], kind = #vector.kind<add>}> : "
        "(vector<4x4xf32>, vector<4x4xf32>, vector<4x4xf32>) -> vector<4x4xf32>"
    ),
    "vector.extract at a dynamic position in a vector of several dimensions": (
        in_kernel(
            '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4x4xf32>\n'
            '%1 = "vector.extract"(%0, %arg3) <{static_position = array<i64: '
            "-9223372036854775808>}> : (vector<4x4xf32>, index) -> vector<4xf32>"
        )
    ),
    "another op on vectors of several dimensions, such as vector.reduction": (
        in_kernel(
            '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4x4xf32>\n'
            '%1 = "vector.reduction"(%0) <{fastmath = #arith.fastmath<none>, kind = '
            "#vector.kind<add>}> : (vector<4x4xf32>) -> f32"
        )
    ),
    "a function parameter, call or return of vectors of several dimensions": """\
func.func private @h(%v: vector<4x4xf32>) {
  return
}
"""
    + in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4x4xf32>\n'
        '"func.call"(%0) <{callee = @h}> : (vector<4x4xf32>) -> ()'
    ),
    "amdgpu.mfma": in_kernel(
        '%0 = "vector.broadcast"(%arg2) : (f32) -> vector<4xf32>\n'
        '%1 = "amdgpu.mfma"(%arg2, %arg2, %0) <{blocks = 1 : i32, k = 1 : i32, '
        "m = 16 : i32, n = 16 : i32}> : (f32, f32, vector<4xf32>) -> vector<4xf32>"
    ),
    "amdgpu.sched_barrier": in_kernel('"amdgpu.sched_barrier"() : () -> ()'),
    "affine.load": in_kernel(
        '%0 = "affine.load"(%arg0, %arg3) <{map = affine_map<(d0) -> (d0)>}> : '
        "(memref<16xf32>, index) -> f32"
    ),
    "affine.for": in_kernel(
        '"affine.for"() <{lowerBoundMap = affine_map<() -> (0)>, upperBoundMap = '
        "affine_map<() -> (4)>, step = 1 : index, operandSegmentSizes = "
        'array<i32: 0, 0, 0>}> ({\n^bb0(%i: index):\n  "affine.yield"() : () -> ()\n'
        "}) : () -> ()"
    ),
    "an op of a dialect gpuc does not register": in_kernel(
        '"linalg.fill"(%arg2, %arg0) : (f32, memref<16xf32>) -> ()'
    ),
    "gpu.shuffle of another type": gpu_module(
        '%0 = "arith.constant"() <{value = 1 : i16}> : () -> i16\n'
        '%1 = "arith.constant"() <{value = 32 : i32}> : () -> i32\n'
        '%2, %3 = "gpu.shuffle"(%0, %arg1, %1) <{mode = #gpu<shuffle_mode xor>}> : '
        "(i16, i32, i32) -> (i16, i1)"
    ),
    "gpu.subgroup_mma_load_matrix of a shape other than m16n16k16's": in_kernel(
        '%0 = "gpu.subgroup_mma_load_matrix"(%arg0, %arg3) <{leadDimension = 16 '
        ': index}> : (memref<16xf32>, index) -> !gpu.mma_matrix<32x8xf16, "AOp">'
    ),
    "gpu.subgroup_mma_elementwise of an integer kind": in_kernel(
        '%0 = "gpu.subgroup_mma_constant_matrix"(%arg2) : (f32) -> '
        '!gpu.mma_matrix<16x16xf32, "COp">\n'
        '%1 = "gpu.subgroup_mma_elementwise"(%0, %0) <{opType = '
        '#gpu<mma_element_wise addi>}> : (!gpu.mma_matrix<16x16xf32, "COp">, '
        '!gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">'
    ),
    "gpu.subgroup_reduce with cluster_size": gpu_module(
        '%0 = "gpu.subgroup_reduce"(%arg2) <{cluster_size = 4 : i32, op = '
        "#gpu<all_reduce_op add>}> : (f32) -> f32"
    ),
    "gpu.all_reduce of bf16": gpu_module(
        '%0 = "arith.truncf"(%arg2) : (f32) -> bf16\n'
        '%1 = "gpu.all_reduce"(%0) <{op = #gpu<all_reduce_op add>}> ({\n'
        "}) : (bf16) -> bf16"
    ),
    "memref.alloc in global memory": in_kernel(
        '%0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<16xf32, 1>"
    ),
    "memref.alloc in private memory": in_kernel(
        '%0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<16xf32>"
    ),
    "memref.alloca of a dynamic size in workgroup memory": in_kernel(
        '%0 = "memref.alloca"(%arg3) <{operandSegmentSizes = array<i32: 1, 0>}> : '
        "(index) -> memref<?xf32, #gpu.address_space<workgroup>>"
    ),
    "memref.global outside workgroup memory, other than a constant table": """\
"builtin.module"() ({
  "memref.global"() <{sym_name = "g", sym_visibility = "private", type = \
memref<16xf32>, initial_value}> : () -> ()
  "func.func"() <{function_type = (index) -> (), sym_name = "k"}> ({
  ^bb0(%arg0: index):
    %0 = "memref.get_global"() <{name = @g}> : () -> memref<16xf32>
    "func.return"() : () -> ()
  }) {gpu.kernel} : () -> ()
}) : () -> ()
""",
    "memref.global with an initial value": """\
"builtin.module"() ({
  "memref.global"() <{sym_name = "g", sym_visibility = "private", type = \
memref<4xf32, 3>, initial_value = dense<1.0> : tensor<4xf32>}> : () -> ()
  "func.func"() <{function_type = (index) -> (), sym_name = "k"}> ({
  ^bb0(%arg0: index):
    %0 = "memref.get_global"() <{name = @g}> : () -> memref<4xf32, 3>
    "func.return"() : () -> ()
  }) {gpu.kernel} : () -> ()
}) : () -> ()
""",
    "memref.dim of a dimension that is not a constant": in_kernel(
        '%0 = "memref.dim"(%arg0, %arg3) : (memref<16xf32>, index) -> index'
    ),
    "memref.atomic_rmw of another kind": in_kernel(
        '%0 = "memref.atomic_rmw"(%arg2, %arg0, %arg3) {kind = 13 : i64} : '
        "(f32, memref<16xf32>, index) -> f32"
    ),
    "memref.subview dropping a dimension of size other than 1": in_kernel(
        '%0 = "memref.reinterpret_cast"(%arg0) <{operandSegmentSizes = array<i32: '
        "1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 4, "
        "4>, static_strides = array<i64: 4, 1>}> : (memref<16xf32>) -> "
        "memref<4x4xf32, strided<[4, 1]>>\n"
        '%1 = "memref.subview"(%0) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, '
        "static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 2, 4>, "
        "static_strides = array<i64: 1, 1>}> : (memref<4x4xf32, strided<[4, 1]>>) "
        "-> memref<4xf32, strided<[1]>>"
    ),
    "memref.memory_space_cast between two specific spaces": in_kernel(
        '%0 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<16xf32, #gpu.address_space<workgroup>>\n"
        '%1 = "memref.memory_space_cast"(%0) : (memref<16xf32, '
        "#gpu.address_space<workgroup>>) -> memref<16xf32, 1>"
    ),
    "spirv.entry_point_abi with other entries than workgroup_size": gpu_module(
        "",
        ", spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = "
        "[8, 1, 1], subgroup_size = 16>",
    ),
}

# A sample of each dialect's accepted ops, compiled for ptx: the op names are
# what the sample shows imports.
ACCEPTED: dict[tuple[str, ...], str] = {
    (
        "gpu.module",
        "gpu.func",
        "gpu.return",
        "gpu.thread_id",
        "gpu.block_id",
        "gpu.block_dim",
        "gpu.grid_dim",
        "gpu.global_id",
        "gpu.lane_id",
        "gpu.barrier",
        "gpu.subgroup_id",
        "gpu.subgroup_size",
        "gpu.num_subgroups",
        "gpu.shuffle",
        "gpu.subgroup_reduce",
        "gpu.all_reduce",
        "gpu.yield",
        "gpu.printf",
    ): gpu_module(
        "\n".join(
            f'%{op} = "gpu.{op}"() <{{dimension = #gpu<dim x>}}> : () -> index'
            for op in ("thread_id", "block_id", "block_dim", "grid_dim", "global_id")
        )
        + '\n%l = "gpu.lane_id"() : () -> index\n'
        '%s = "gpu.subgroup_id"() : () -> index\n'
        '%z = "gpu.subgroup_size"() : () -> index\n'
        '%n = "gpu.num_subgroups"() : () -> index\n'
        '"gpu.barrier"() : () -> ()\n'
        '%c = "arith.constant"() <{value = 32 : i32}> : () -> i32\n'
        '%r, %v = "gpu.shuffle"(%arg2, %arg1, %c) <{mode = #gpu<shuffle_mode '
        "down>}> : (f32, i32, i32) -> (f32, i1)\n"
        '%q = "gpu.subgroup_reduce"(%r) <{op = #gpu<all_reduce_op add>}> : '
        "(f32) -> f32\n"
        '%a = "gpu.all_reduce"(%q) ({\n'
        "^bb0(%x: f32, %y: f32):\n"
        '  %m = "arith.maximumf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : '
        "(f32, f32) -> f32\n"
        '  "gpu.yield"(%m) : (f32) -> ()\n'
        "}) : (f32) -> f32\n"
        '"memref.store"(%a, %arg0, %thread_id) : (f32, memref<16xf32>, index) -> ()\n'
        '"gpu.printf"(%arg1, %a) <{format = "%d %f\\0A"}> : (i32, f32) -> ()'
    ),
    (
        "amdgpu.raw_buffer_load",
        "amdgpu.raw_buffer_store",
        "amdgpu.raw_buffer_atomic_fadd",
        "amdgpu.raw_buffer_atomic_fmax",
        "amdgpu.lds_barrier",
    ): in_kernel(
        "%i = arith.index_cast %arg3 : index to i32\n"
        "%v = amdgpu.raw_buffer_load %arg0[%i] : memref<16xf32>, i32 -> vector<2xf32>\n"
        "amdgpu.lds_barrier\n"
        "amdgpu.raw_buffer_store {boundsCheck = false} %v -> %arg1[%i] : "
        "vector<2xf32> -> memref<16xf32>, i32\n"
        "amdgpu.raw_buffer_atomic_fadd %arg2 -> %arg1[%i] : "
        "f32 -> memref<16xf32>, i32\n"
        "amdgpu.raw_buffer_atomic_fmax %arg2 -> %arg1[%i] : "
        "f32 -> memref<16xf32>, i32"
    ),
    ("memref.expand_shape", "memref.collapse_shape"): in_kernel(
        '%0 = "memref.expand_shape"(%arg0) <{reassociation = [[0, 1]], '
        "static_output_shape = array<i64: 4, 4>}> : (memref<16xf32>) -> "
        "memref<4x4xf32>\n"
        '%1 = "memref.collapse_shape"(%0) <{reassociation = [[0, 1]]}> : '
        "(memref<4x4xf32>) -> memref<16xf32>\n"
        '"memref.store"(%arg2, %1, %arg3) : (f32, memref<16xf32>, index) -> ()'
    ),
    ("affine.apply", "affine.min", "affine.max"): in_kernel(
        '%0 = "affine.apply"(%arg3, %arg3) <{map = affine_map<(d0)[s0] -> '
        "((d0 - s0) ceildiv 2 + d0 mod 3)>}> : (index, index) -> index\n"
        '%1 = "affine.min"(%0) <{map = affine_map<(d0) -> (d0, 15)>}> : '
        "(index) -> index\n"
        '%2 = "affine.max"(%1) <{map = affine_map<(d0) -> (d0 floordiv 4, 0)>}> : '
        "(index) -> index\n"
        '"memref.store"(%arg2, %arg0, %2) : (f32, memref<16xf32>, index) -> ()'
    ),
    ("gpu.launch", "gpu.terminator"): """\
"builtin.module"() ({
  "func.func"() <{function_type = (memref<16xf32>) -> (), sym_name = "host"}> ({
  ^bb0(%m: memref<16xf32>):
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %c16 = "arith.constant"() <{value = 16 : index}> : () -> index
    "gpu.launch"(%c1, %c1, %c1, %c16, %c1, %c1) <{operandSegmentSizes = \
array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, \
%gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
      %v = "memref.load"(%m, %tx) : (memref<16xf32>, index) -> f32
      %w = "arith.addf"(%v, %v) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "memref.store"(%w, %m, %tx) : (f32, memref<16xf32>, index) -> ()
      "gpu.terminator"() : () -> ()
    }) : (index, index, index, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
""",
    (
        "memref.load",
        "memref.store",
        "memref.atomic_rmw",
        "memref.dim",
        "memref.cast",
        "memref.alloca",
        "memref.dealloc",
        "memref.subview",
        "memref.assume_alignment",
    ): in_kernel(
        '%0 = "memref.load"(%arg0, %arg3) : (memref<16xf32>, index) -> f32\n'
        '%1 = "memref.atomic_rmw"(%0, %arg1, %arg3) {kind = 0 : i64} : '
        "(f32, memref<16xf32>, index) -> f32\n"
        '%2 = "arith.constant"() <{value = 0 : index}> : () -> index\n'
        '%3 = "memref.dim"(%arg0, %2) : (memref<16xf32>, index) -> index\n'
        '%4 = "memref.cast"(%arg0) : (memref<16xf32>) -> memref<?xf32>\n'
        '%5 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> '
        "memref<16xf32, #gpu.address_space<workgroup>>\n"
        '%6 = "memref.subview"(%4) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, '
        "static_offsets = array<i64: 4>, static_sizes = array<i64: 8>, "
        "static_strides = array<i64: 1>}> : (memref<?xf32>) -> "
        "memref<8xf32, strided<[1], offset: 4>>\n"
        '%7 = "memref.assume_alignment"(%arg1) <{alignment = 16 : i32}> : '
        "(memref<16xf32>) -> memref<16xf32>\n"
        '"memref.store"(%0, %6, %3) : (f32, memref<8xf32, strided<[1], offset: 4>>, '
        "index) -> ()\n"
        '"memref.store"(%1, %5, %arg3) : (f32, memref<16xf32, '
        "#gpu.address_space<workgroup>>, index) -> ()\n"
        '"memref.dealloc"(%5) : (memref<16xf32, #gpu.address_space<workgroup>>) -> ()'
    ),
    (
        "memref.global",
        "memref.get_global",
        "memref.alloc",
        "memref.reinterpret_cast",
        "memref.memory_space_cast",
    ): """\
"builtin.module"() ({
  "memref.global"() <{sym_name = "g", sym_visibility = "private", type = \
memref<16xf32, 3>, initial_value}> : () -> ()
  "func.func"() <{function_type = (memref<16xf32, 1>, index) -> (), sym_name = "k"}> ({
  ^bb0(%arg0: memref<16xf32, 1>, %arg1: index):
    %0 = "memref.get_global"() <{name = @g}> : () -> memref<16xf32, 3>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> \
memref<4x4xf32, #gpu.address_space<workgroup>>
    %2 = "memref.memory_space_cast"(%arg0) : (memref<16xf32, 1>) -> \
memref<16xf32, #gpu.address_space<global>>
    %3 = "memref.reinterpret_cast"(%2) <{operandSegmentSizes = array<i32: 1, 0, 0, \
0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 4, 4>, \
static_strides = array<i64: 4, 1>}> : (memref<16xf32, #gpu.address_space<global>>) \
-> memref<4x4xf32, strided<[4, 1]>, #gpu.address_space<global>>
    %4 = "memref.load"(%0, %arg1) : (memref<16xf32, 3>, index) -> f32
    "memref.store"(%4, %1, %arg1, %arg1) : (f32, memref<4x4xf32, \
#gpu.address_space<workgroup>>, index, index) -> ()
    "memref.store"(%4, %3, %arg1, %arg1) : (f32, memref<4x4xf32, strided<[4, 1]>, \
#gpu.address_space<global>>, index, index) -> ()
    "func.return"() : () -> ()
  }) {gpu.kernel} : () -> ()
}) : () -> ()
""",
    ("func.func", "func.call", "func.return"): """\
func.func private @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
"""
    + in_kernel(
        '%0 = "func.call"(%arg2) <{callee = @twice}> : (f32) -> f32\n'
        '"memref.store"(%0, %arg0, %arg3) : (f32, memref<16xf32>, index) -> ()'
    ),
    ("arith.addf", "arith.mulf", "arith.cmpf", "arith.select", "math.sqrt"): in_kernel(
        "%0 = arith.mulf %arg2, %arg2 : f32\n"
        "%1 = arith.addf %0, %arg2 : f32\n"
        "%2 = math.sqrt %1 : f32\n"
        "%3 = arith.cmpf olt, %2, %arg2 : f32\n"
        "%4 = arith.select %3, %2, %arg2 : f32\n"
        "memref.store %4, %arg0[%arg3] : memref<16xf32>"
    ),
    (
        "scf.while",
        "scf.condition",
        "scf.execute_region",
        "cf.switch",
        "cf.assert",
    ): in_kernel(
        "%c0 = arith.constant 0 : index\n"
        "%c1 = arith.constant 1 : index\n"
        '%w = "scf.while"(%c0) ({\n'
        "^bb0(%j: index):\n"
        "  %more = arith.cmpi ult, %j, %arg3 : index\n"
        '  "scf.condition"(%more, %j) : (i1, index) -> ()\n'
        "}, {\n"
        "^bb0(%j: index):\n"
        "  %next = arith.addi %j, %c1 : index\n"
        '  "scf.yield"(%next) : (index) -> ()\n'
        "}) : (index) -> index\n"
        '%e = "scf.execute_region"() ({\n'
        "  %t = arith.addf %arg2, %arg2 : f32\n"
        '  "scf.yield"(%t) : (f32) -> ()\n'
        "}) : () -> f32\n"
        "%ok = arith.cmpi ule, %w, %arg3 : index\n"
        '"cf.assert"(%ok) <{msg = "counted past the end"}> : (i1) -> ()\n'
        "%n = arith.index_cast %w : index to i32\n"
        '"cf.switch"(%n)[^bb1, ^bb2] <{case_operand_segments = array<i32: 0>, '
        "case_values = dense<1> : vector<1xi32>, operandSegmentSizes = array<i32: "
        "1, 0, 0>}> : (i32) -> ()\n"
        "^bb1:\n"
        "  memref.store %e, %arg0[%c0] : memref<16xf32>\n"
        '  "cf.br"()[^bb2] : () -> ()\n'
        "^bb2:"
    ),
    ("scf.for", "scf.yield", "scf.if", "cf.br", "cf.cond_br"): in_kernel(
        "%c0 = arith.constant 0 : index\n"
        "%c1 = arith.constant 1 : index\n"
        "%s = scf.for %j = %c0 to %arg3 step %c1 iter_args(%a = %arg2) -> (f32) {\n"
        "  %b = arith.addf %a, %a : f32\n"
        "  scf.yield %b : f32\n"
        "}\n"
        "%p = arith.cmpi eq, %arg3, %c0 : index\n"
        "scf.if %p {\n"
        "  memref.store %s, %arg0[%c0] : memref<16xf32>\n"
        "}\n"
        '"cf.cond_br"(%p)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> '
        ": (i1) -> ()\n"
        "^bb1:\n"
        '  "cf.br"()[^bb2] : () -> ()\n'
        "^bb2:"
    ),
    (
        "vector.broadcast",
        "vector.extract",
        "vector.insert",
        "vector.shuffle",
        "vector.fma",
        "vector.extractelement",
        "vector.insertelement",
        "vector.bitcast",
        "vector.load",
        "vector.store",
    ): in_kernel(
        "%v = vector.broadcast %arg2 : f32 to vector<4xf32>\n"
        "%w = vector.fma %v, %v, %v : vector<4xf32>\n"
        "%e = vector.extract %w[1] : f32 from vector<4xf32>\n"
        "%u = vector.insert %e, %v[0] : f32 into vector<4xf32>\n"
        "%s = vector.shuffle %u, %w [0, 5] : vector<4xf32>, vector<4xf32>\n"
        "%f = vector.extract %s[1] : f32 from vector<2xf32>\n"
        "%g = vector.extractelement %v[%arg3 : index] : vector<4xf32>\n"
        "%h = vector.insertelement %g, %u[%arg3 : index] : vector<4xf32>\n"
        "%b = vector.bitcast %h : vector<4xf32> to vector<4xi32>\n"
        "%i = vector.extract %b[2] : i32 from vector<4xi32>\n"
        "%x = arith.sitofp %i : i32 to f32\n"
        "%y = arith.addf %f, %x : f32\n"
        "memref.store %y, %arg0[%arg3] : memref<16xf32>\n"
        '%l = "vector.load"(%arg1, %arg3) : (memref<16xf32>, index) -> vector<4xf32>\n'
        '"vector.store"(%l, %arg0, %arg3) : (vector<4xf32>, memref<16xf32>, index) '
        "-> ()"
    ),
    (
        "vector.transfer_read",
        "vector.transfer_write",
        "vector.contract",
        "vector.transpose",
        "vector.shape_cast",
    ): in_kernel(
        "%c0 = arith.constant 0 : index\n"
        '%m = "memref.reinterpret_cast"(%arg0) <{operandSegmentSizes = array<i32: '
        "1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 4, "
        "4>, static_strides = array<i64: 4, 1>}> : (memref<16xf32>) -> "
        "memref<4x4xf32, strided<[4, 1]>>\n"
        "%v = vector.transfer_read %m[%c0, %c0], %arg2 {in_bounds = [true, true]} "
        ": memref<4x4xf32, strided<[4, 1]>>, vector<4x4xf32>\n"
        "%t = vector.transpose %v, [1, 0] : vector<4x4xf32> to vector<4x4xf32>\n"
        "%d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, "
        "d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> "
        '(d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind '
        "= #vector.kind<add>} %v, %t, %v : vector<4x4xf32>, vector<4x4xf32> into "
        "vector<4x4xf32>\n"
        "%s = vector.shape_cast %d : vector<4x4xf32> to vector<16xf32>\n"
        "vector.transfer_write %s, %arg1[%c0] {in_bounds = [false]} : "
        "vector<16xf32>, memref<16xf32>"
    ),
}


@cache
def section() -> str:
    text = DOC.read_text()
    start = text.index("\n## Op by op\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def table(heading: str) -> list[list[str]]:
    """The rows (cells stripped) of the table under `### heading`."""
    part = section().split(f"\n### {heading}\n", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in part.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append([c.replace("\\|", "|") for c in cells])
    return rows[1:]  # the header


OP_NAME = re.compile(r"`([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)+)`")


def op_names(cell: str) -> list[str]:
    return OP_NAME.findall(cell)


def row_cases(row: list[str]) -> list[str]:
    """The REFUSED keys of a refused row: the row's first cell without
    backticks where it names one op or none (a case: `memref.alloc` in global
    memory), else each op it names."""
    names = op_names(row[0])
    return names if len(names) > 1 else [row[0].replace("`", "")]


def diagnostic(row: list[str], case: str) -> list[str]:
    """The row's diagnostic, for `case`, as the pieces that must appear in
    order (`…` stands for a list the message goes on with; `<op>` for the
    op's name)."""
    found = re.findall(r"`([^`]+)`", row[1])
    assert found, f"row {row[0]} gives no diagnostic in backticks"
    return found[0].replace("<op>", case).split("…")


@cache
def registered() -> dict[str, list[str]]:
    """Dialect -> the names of its registered ops."""
    return {
        d: [op.name for op in lazy(DIALECTS[d])().operations]
        for d in FOREIGN
        if d in DIALECTS
    }


@cache
def accepted_by_code() -> set[str]:
    """The ops the code takes from other frontends: the import's op lists
    (and the ops it lets use memrefs), the translators of the dialects gpuc
    lowers itself and the region terminators of the ops they translate, and
    the host code the outlining takes."""
    from gpuc.dialects.foreign.arith import RENAMED
    from gpuc.lowering.context import DIALECT_TRANSLATORS, TRANSLATORS
    from gpuc.transforms.foreign.checks import MEMREF_USES, SUPPORTED
    from gpuc.transforms.foreign.vector_unroll import UNROLLED

    names = {name for ops in SUPPORTED.values() for name in ops} | set(MEMREF_USES)
    names |= set(UNROLLED)
    names |= set(RENAMED)  # MLIR 16's arith.maxf and minf, read as their new ops
    for dialect in FOREIGN:
        for module in DIALECT_TRANSLATORS.get(dialect, ()):
            import_module(module)
    translated = {op for op in TRANSLATORS if op.dialect_name() in FOREIGN}
    names |= {op.name for op in translated}
    for dialect in FOREIGN:
        for op in lazy(DIALECTS[dialect])().operations:
            definition = op.get_irdl_definition()
            parents = [t for t in definition.traits if isinstance(t, HasParent)]
            if any(isinstance(t, IsTerminator) for t in definition.traits) and any(
                p in translated for t in parents for p in t.op_types
            ):
                names.add(op.name)
    return names | HOST_OPS | {"gpu.module_end"}


def accepted_rows() -> set[str]:
    return {name for row in table("Accepted") for name in op_names(row[0])}


def refused_rows() -> set[str]:
    return {name for row in table("Refused") for name in op_names(row[0])}


def test_every_op_the_code_takes_has_a_row() -> None:
    missing = sorted(accepted_by_code() - accepted_rows())
    assert not missing, f"docs/frontends.md, Op by op: no Accepted row for {missing}"


def test_every_registered_op_has_a_row() -> None:
    rows = accepted_rows() | refused_rows()
    missing = sorted(
        name for ops in registered().values() for name in ops if name not in rows
    )
    assert not missing, f"docs/frontends.md, Op by op: no row for {missing}"


def test_accepted_rows_are_what_the_code_takes() -> None:
    extra = sorted(accepted_rows() - accepted_by_code() - HOST_DROPPED)
    assert not extra, f"Accepted rows for ops the code does not take: {extra}"


def test_a_refused_op_that_the_code_takes_has_a_row_of_its_own() -> None:
    for row in table("Refused"):
        taken = [n for n in op_names(row[0]) if n in accepted_by_code()]
        assert not taken or len(op_names(row[0])) == 1, (
            f"{taken} are taken in some cases; give each a row saying in which "
            f"it is refused: {row[0]}"
        )


REFUSED_CASES = [(row, case) for row in table("Refused") for case in row_cases(row)]


@pytest.mark.parametrize(
    ("row", "case"), REFUSED_CASES, ids=[case for _, case in REFUSED_CASES]
)
def test_a_refused_op_gets_its_rows_diagnostic(row: list[str], case: str) -> None:
    assert case in REFUSED, f"tests/test_frontends_table.py has no kernel for {case}"
    with pytest.raises(DiagnosticException) as error:
        compile_module(REFUSED[case], "ptx")
    # The first problem is the error, the module's others its notes.
    message = "\n".join([str(error.value), *getattr(error.value, "__notes__", [])])
    at = 0
    for piece in diagnostic(row, case):
        found = message.find(piece.strip(), at)
        assert found != -1, f"{piece.strip()!r} is not in the diagnostic:\n{message}"
        at = found + len(piece.strip())


def test_every_kernel_here_has_a_row() -> None:
    cases = {case for _, case in REFUSED_CASES}
    assert not set(REFUSED) - cases, f"no Refused row for {set(REFUSED) - cases}"


@pytest.mark.parametrize("ops", list(ACCEPTED), ids=[ops[0] for ops in ACCEPTED])
def test_a_sample_of_accepted_ops_compiles(ops: tuple[str, ...]) -> None:
    assert set(ops) <= accepted_rows(), sorted(set(ops) - accepted_rows())
    text = ACCEPTED[ops]
    for name in ops:
        assert name in text, f"the sample of {name} does not use it"
    ptx = str(compile_module(text, "ptx").artefact)
    assert ".entry" in ptx


def test_the_sample_covers_every_dialect() -> None:
    sampled = {name.split(".")[0] for ops in ACCEPTED for name in ops}
    assert sampled == set(registered()), set(registered()) - sampled


def test_every_spirv_attribute_has_a_row() -> None:
    rows = {
        m for row in table("Attributes") for m in re.findall(r"`#?([a-z_.]+)", row[0])
    }
    spirv = {a.name for a in lazy(DIALECTS["spirv"])().attributes}
    assert spirv <= rows, spirv - rows
