// gpu.all_reduce and gpu.subgroup_reduce with the kinds of MLIR 19 and later
// (signed and unsigned integer min/max, minNum/maxNum and NaN-propagating
// minimum/maximum), and the subgroup each thread is in.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @kinds(%xi: memref<?xi32>, %xf: memref<?xf32>, %ri: memref<?xi32>,
                    %rf: memref<?xf32>, %ids: memref<?xi32>) kernel {
      %t = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %n = memref.dim %xi, %c0 : memref<?xi32>
      %i = memref.load %xi[%t] : memref<?xi32>
      %f = memref.load %xf[%t] : memref<?xf32>
      %a0 = gpu.all_reduce minsi %i {} : (i32) -> (i32)
      %a1 = gpu.all_reduce minui %i {} : (i32) -> (i32)
      %a2 = gpu.all_reduce maxsi %i uniform {} : (i32) -> (i32)
      %a3 = gpu.all_reduce maxui %i {} : (i32) -> (i32)
      %b0 = gpu.all_reduce minnumf %f {} : (f32) -> (f32)
      %b1 = gpu.all_reduce maxnumf %f {} : (f32) -> (f32)
      %b2 = gpu.all_reduce minimumf %f {} : (f32) -> (f32)
      %b3 = gpu.all_reduce maximumf %f uniform {} : (f32) -> (f32)
      %s0 = gpu.subgroup_reduce minsi %i : (i32) -> (i32)
      %s1 = gpu.subgroup_reduce minui %i : (i32) -> (i32)
      %s2 = gpu.subgroup_reduce maxsi %i uniform : (i32) -> (i32)
      %s3 = gpu.subgroup_reduce maxui %i : (i32) -> (i32)
      %g0 = gpu.subgroup_reduce minnumf %f : (f32) -> (f32)
      %g1 = gpu.subgroup_reduce maxnumf %f : (f32) -> (f32)
      %g2 = gpu.subgroup_reduce minimumf %f : (f32) -> (f32)
      %g3 = gpu.subgroup_reduce maximumf %f uniform : (f32) -> (f32)
      %at0 = arith.addi %t, %c0 : index
      %n1 = arith.muli %n, %c1 : index
      %at1 = arith.addi %t, %n1 : index
      %n2 = arith.muli %n, %c2 : index
      %at2 = arith.addi %t, %n2 : index
      %n3 = arith.muli %n, %c3 : index
      %at3 = arith.addi %t, %n3 : index
      %n4 = arith.muli %n, %c4 : index
      %at4 = arith.addi %t, %n4 : index
      %n5 = arith.muli %n, %c5 : index
      %at5 = arith.addi %t, %n5 : index
      %n6 = arith.muli %n, %c6 : index
      %at6 = arith.addi %t, %n6 : index
      %n7 = arith.muli %n, %c7 : index
      %at7 = arith.addi %t, %n7 : index
      memref.store %a0, %ri[%at0] : memref<?xi32>
      memref.store %a1, %ri[%at1] : memref<?xi32>
      memref.store %a2, %ri[%at2] : memref<?xi32>
      memref.store %a3, %ri[%at3] : memref<?xi32>
      memref.store %s0, %ri[%at4] : memref<?xi32>
      memref.store %s1, %ri[%at5] : memref<?xi32>
      memref.store %s2, %ri[%at6] : memref<?xi32>
      memref.store %s3, %ri[%at7] : memref<?xi32>
      memref.store %b0, %rf[%at0] : memref<?xf32>
      memref.store %b1, %rf[%at1] : memref<?xf32>
      memref.store %b2, %rf[%at2] : memref<?xf32>
      memref.store %b3, %rf[%at3] : memref<?xf32>
      memref.store %g0, %rf[%at4] : memref<?xf32>
      memref.store %g1, %rf[%at5] : memref<?xf32>
      memref.store %g2, %rf[%at6] : memref<?xf32>
      memref.store %g3, %rf[%at7] : memref<?xf32>
      %sid = gpu.subgroup_id : index
      %lane = gpu.lane_id
      %size = gpu.subgroup_size : index
      %sid32 = arith.index_cast %sid : index to i32
      %lane32 = arith.index_cast %lane : index to i32
      %size32 = arith.index_cast %size : index to i32
      %t3 = arith.muli %t, %c3 : index
      %t31 = arith.addi %t3, %c1 : index
      %t32 = arith.addi %t3, %c2 : index
      memref.store %sid32, %ids[%t3] : memref<?xi32>
      memref.store %lane32, %ids[%t31] : memref<?xi32>
      memref.store %size32, %ids[%t32] : memref<?xi32>
      gpu.return
    }
  }
}
