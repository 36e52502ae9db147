// mlir-opt-16 --mlir-print-op-generic Inputs/versions/nd_vector_moves_mlir16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<4x4xf32>):
    %0 = "arith.constant"() {value = 0 : index} : () -> index
    %1 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
    %2 = "vector.transfer_read"(%arg0, %0, %0, %1) {in_bounds = [true, true], operand_segment_sizes = array<i32: 1, 2, 1, 0>, permutation_map = #map} : (memref<4x4xf32>, index, index, f32) -> vector<4x4xf32>
    %3 = "vector.extract"(%2) {position = [1]} : (vector<4x4xf32>) -> vector<4xf32>
    %4 = "vector.insert"(%3, %2) {position = [2]} : (vector<4xf32>, vector<4x4xf32>) -> vector<4x4xf32>
    %5 = "vector.broadcast"(%3) : (vector<4xf32>) -> vector<4x4xf32>
    %6 = "arith.addf"(%4, %5) {fastmath = #arith.fastmath<none>} : (vector<4x4xf32>, vector<4x4xf32>) -> vector<4x4xf32>
    "vector.transfer_write"(%6, %arg0, %0, %0) {in_bounds = [true, true], operand_segment_sizes = array<i32: 1, 1, 2, 0>, permutation_map = #map} : (vector<4x4xf32>, memref<4x4xf32>, index, index) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<4x4xf32>) -> (), gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()

