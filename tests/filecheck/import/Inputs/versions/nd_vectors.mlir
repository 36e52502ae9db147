// Vector ops on 2-D vectors as MLIR 16 to 22 all parse them (no arith op or
// kind that was renamed between them): read by ../../nd_vectors.mlir in generic form,
// as nd_vectors_mlir16_generic.mlir and nd_vectors_mlir22_generic.mlir print it.
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @versions(%a: memref<4x4xf16>, %c: memref<4x4xf32>, %i: index) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %A = vector.transfer_read %a[%i, %c0], %f0 : memref<4x4xf16>, vector<2x4xf16>
    %B = vector.transfer_read %a[%c0, %c0], %f0 {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x4xf16>, vector<4x2xf16>
    %C = vector.transfer_read %c[%c0, %c0], %z {in_bounds = [true, true]} : memref<4x4xf32>, vector<2x2xf32>
    %D = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %A, %B, %C : vector<2x4xf16>, vector<4x2xf16> into vector<2x2xf32>
    %T = vector.transpose %D, [1, 0] : vector<2x2xf32> to vector<2x2xf32>
    %S = vector.shape_cast %T : vector<2x2xf32> to vector<4xf32>
    vector.transfer_write %S, %c[%i, %c0] : vector<4xf32>, memref<4x4xf32>
    return
  }
}
