// mlir-opt-22 --mlir-print-op-generic Inputs/versions/nd_vectors.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<4x4xf16>, memref<4x4xf32>, index) -> (), sym_name = "versions"}> ({
  ^bb0(%arg0: memref<4x4xf16>, %arg1: memref<4x4xf32>, %arg2: index):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 0.000000e+00 : f16}> : () -> f16
    %2 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %3 = "vector.transfer_read"(%arg0, %arg2, %0, %1) <{in_bounds = [false, false], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<4x4xf16>, index, index, f16) -> vector<2x4xf16>
    %4 = "vector.transfer_read"(%arg0, %0, %0, %1) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map1}> : (memref<4x4xf16>, index, index, f16) -> vector<4x2xf16>
    %5 = "vector.transfer_read"(%arg1, %0, %0, %2) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<4x4xf32>, index, index, f32) -> vector<2x2xf32>
    %6 = "vector.contract"(%3, %4, %5) <{indexing_maps = [#map2, #map3, #map4], iterator_types = [#vector.iterator_type<parallel>, #vector.iterator_type<parallel>, #vector.iterator_type<reduction>], kind = #vector.kind<add>}> : (vector<2x4xf16>, vector<4x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %7 = "vector.transpose"(%6) <{permutation = array<i64: 1, 0>}> : (vector<2x2xf32>) -> vector<2x2xf32>
    %8 = "vector.shape_cast"(%7) : (vector<2x2xf32>) -> vector<4xf32>
    "vector.transfer_write"(%8, %arg1, %arg2, %0) <{in_bounds = [false], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map5}> : (vector<4xf32>, memref<4x4xf32>, index, index) -> ()
    "func.return"() : () -> ()
  }) {gpu.kernel} : () -> ()
}) : () -> ()

