// Kernels of tests/test_subgroup.py: subgroup shuffles and reductions, one
// thread per element (1-D blocks, the grid covers exactly n threads). Each
// writes its subgroup id, lane and subgroup size, so that the test builds
// the reference from the subgroups the runtime formed (OpenCL picks the
// sub-group size).

// out[4n]: xor (width %w), up, down, idx (width %w); valid[i]: a bit per shuffle.
gpuc.func @shuffles(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                    %valid: !gpuc.ptr<i32, global>, %ids: !gpuc.ptr<i32, global>,
                    %ox: i32, %ou: i32, %od: i32, %oi: i32, %w: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %rx, %vx = gpuc.shuffle xor %v, %ox, width %w : f32
  %ru, %vu = gpuc.shuffle up %v, %ou : f32
  %rd, %vd = gpuc.shuffle down %v, %od : f32
  %ri, %vi = gpuc.shuffle idx %v, %oi, width %w : f32
  %n = gpuc.grid_dim x
  %b = gpuc.block_dim x
  %total = arith.muli %n, %b : index
  %i1 = arith.addi %i, %total : index
  %i2 = arith.addi %i1, %total : index
  %i3 = arith.addi %i2, %total : index
  gpuc.store %rx, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.store %ru, %out[%i1] : !gpuc.ptr<f32, global>
  gpuc.store %rd, %out[%i2] : !gpuc.ptr<f32, global>
  gpuc.store %ri, %out[%i3] : !gpuc.ptr<f32, global>
  %bx = arith.extui %vx : i1 to i32
  %bu = arith.extui %vu : i1 to i32
  %bd = arith.extui %vd : i1 to i32
  %bi = arith.extui %vi : i1 to i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %su = arith.muli %bu, %c2 : i32
  %sd = arith.muli %bd, %c4 : i32
  %si = arith.muli %bi, %c8 : i32
  %m1 = arith.ori %bx, %su : i32
  %m2 = arith.ori %m1, %sd : i32
  %m3 = arith.ori %m2, %si : i32
  gpuc.store %m3, %valid[%i] : !gpuc.ptr<i32, global>
  %sid = gpuc.subgroup_id
  %lane = gpuc.lane_id
  %size = gpuc.subgroup_size
  %c3 = arith.constant 3 : index
  %j0 = arith.muli %i, %c3 : index
  %one = arith.constant 1 : index
  %j1 = arith.addi %j0, %one : index
  %j2 = arith.addi %j1, %one : index
  %sid32 = arith.index_cast %sid : index to i32
  %lane32 = arith.index_cast %lane : index to i32
  %size32 = arith.index_cast %size : index to i32
  gpuc.store %sid32, %ids[%j0] : !gpuc.ptr<i32, global>
  gpuc.store %lane32, %ids[%j1] : !gpuc.ptr<i32, global>
  gpuc.store %size32, %ids[%j2] : !gpuc.ptr<i32, global>
  gpuc.return
}

// A 64-bit shuffle each: down on i64, xor on f64 (the subgroup's width).
gpuc.func @shuffles64(%x: !gpuc.ptr<i64, global>, %y: !gpuc.ptr<f64, global>,
                      %out: !gpuc.ptr<i64, global>, %outy: !gpuc.ptr<f64, global>,
                      %ids: !gpuc.ptr<i32, global>, %od: i32, %ox: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<i64, global>
  %u = gpuc.load %y[%i] : !gpuc.ptr<f64, global>
  %rd, %vd = gpuc.shuffle down %v, %od : i64
  %rx, %vx = gpuc.shuffle xor %u, %ox : f64
  gpuc.store %rd, %out[%i] : !gpuc.ptr<i64, global>
  gpuc.store %rx, %outy[%i] : !gpuc.ptr<f64, global>
  %sid = gpuc.subgroup_id
  %lane = gpuc.lane_id
  %size = gpuc.subgroup_size
  %c3 = arith.constant 3 : index
  %j0 = arith.muli %i, %c3 : index
  %one = arith.constant 1 : index
  %j1 = arith.addi %j0, %one : index
  %j2 = arith.addi %j1, %one : index
  %sid32 = arith.index_cast %sid : index to i32
  %lane32 = arith.index_cast %lane : index to i32
  %size32 = arith.index_cast %size : index to i32
  gpuc.store %sid32, %ids[%j0] : !gpuc.ptr<i32, global>
  gpuc.store %lane32, %ids[%j1] : !gpuc.ptr<i32, global>
  gpuc.store %size32, %ids[%j2] : !gpuc.ptr<i32, global>
  gpuc.return
}

// A warp sum by xor shuffles (the classic butterfly), next to subgroup_reduce:
// sums[i] = the butterfly's result, red[7n]: add, mul, min, max, and, or, xor
// of %xi; redf[3n]: add, min, max of %xf; redd[n]: add of %xd.
gpuc.func @reductions(%xi: !gpuc.ptr<i32, global>, %xf: !gpuc.ptr<f32, global>,
                      %xd: !gpuc.ptr<f64, global>, %sums: !gpuc.ptr<i32, global>,
                      %red: !gpuc.ptr<i32, global>, %redf: !gpuc.ptr<f32, global>,
                      %redd: !gpuc.ptr<f64, global>, %ids: !gpuc.ptr<i32, global>,
                      %lanes: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %xi[%i] : !gpuc.ptr<i32, global>
  %f = gpuc.load %xf[%i] : !gpuc.ptr<f32, global>
  %d = gpuc.load %xd[%i] : !gpuc.ptr<f64, global>
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %half = arith.shrui %lanes, %c1 : i32
  %sum:2 = scf.while (%acc = %v, %step = %half) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ugt, %step, %c0 : i32
    scf.condition(%more) %acc, %step : i32, i32
  } do {
  ^bb0(%a: i32, %s: i32):
    %other, %ok = gpuc.shuffle xor %a, %s : i32
    %next = arith.addi %a, %other : i32
    %s2 = arith.shrui %s, %c1 : i32
    scf.yield %next, %s2 : i32, i32
  }
  gpuc.store %sum#0, %sums[%i] : !gpuc.ptr<i32, global>
  %n = gpuc.grid_dim x
  %b = gpuc.block_dim x
  %total = arith.muli %n, %b : index
  %k1 = arith.addi %i, %total : index
  %k2 = arith.addi %k1, %total : index
  %k3 = arith.addi %k2, %total : index
  %k4 = arith.addi %k3, %total : index
  %k5 = arith.addi %k4, %total : index
  %k6 = arith.addi %k5, %total : index
  %r0 = gpuc.subgroup_reduce add %v : i32
  %r1 = gpuc.subgroup_reduce mul %v : i32
  %r2 = gpuc.subgroup_reduce min %v : i32
  %r3 = gpuc.subgroup_reduce max %v : i32
  %r4 = gpuc.subgroup_reduce and %v : i32
  %r5 = gpuc.subgroup_reduce or %v : i32
  %r6 = gpuc.subgroup_reduce xor %v : i32
  gpuc.store %r0, %red[%i] : !gpuc.ptr<i32, global>
  gpuc.store %r1, %red[%k1] : !gpuc.ptr<i32, global>
  gpuc.store %r2, %red[%k2] : !gpuc.ptr<i32, global>
  gpuc.store %r3, %red[%k3] : !gpuc.ptr<i32, global>
  gpuc.store %r4, %red[%k4] : !gpuc.ptr<i32, global>
  gpuc.store %r5, %red[%k5] : !gpuc.ptr<i32, global>
  gpuc.store %r6, %red[%k6] : !gpuc.ptr<i32, global>
  %f0 = gpuc.subgroup_reduce add %f : f32
  %f1 = gpuc.subgroup_reduce min %f : f32
  %f2 = gpuc.subgroup_reduce max %f : f32
  gpuc.store %f0, %redf[%i] : !gpuc.ptr<f32, global>
  gpuc.store %f1, %redf[%k1] : !gpuc.ptr<f32, global>
  gpuc.store %f2, %redf[%k2] : !gpuc.ptr<f32, global>
  %d0 = gpuc.subgroup_reduce add %d : f64
  gpuc.store %d0, %redd[%i] : !gpuc.ptr<f64, global>
  %sid = gpuc.subgroup_id
  %lane = gpuc.lane_id
  %size = gpuc.subgroup_size
  %c3 = arith.constant 3 : index
  %j0 = arith.muli %i, %c3 : index
  %one = arith.constant 1 : index
  %j1 = arith.addi %j0, %one : index
  %j2 = arith.addi %j1, %one : index
  %sid32 = arith.index_cast %sid : index to i32
  %lane32 = arith.index_cast %lane : index to i32
  %size32 = arith.index_cast %size : index to i32
  gpuc.store %sid32, %ids[%j0] : !gpuc.ptr<i32, global>
  gpuc.store %lane32, %ids[%j1] : !gpuc.ptr<i32, global>
  gpuc.store %size32, %ids[%j2] : !gpuc.ptr<i32, global>
  gpuc.return
}

// A shuffle in a helper that is not inlined (each call site runs it).
gpuc.func private @neighbour(%v: f32, %o: i32) -> f32 helper no_inline {
  %r, %ok = gpuc.shuffle down %v, %o : f32
  gpuc.return %r : f32
}

gpuc.func @in_helper(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                     %ids: !gpuc.ptr<i32, global>, %o: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = gpuc.call @neighbour(%v, %o) : (f32, i32) -> f32
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  %sid = gpuc.subgroup_id
  %lane = gpuc.lane_id
  %size = gpuc.subgroup_size
  %c3 = arith.constant 3 : index
  %j0 = arith.muli %i, %c3 : index
  %one = arith.constant 1 : index
  %j1 = arith.addi %j0, %one : index
  %j2 = arith.addi %j1, %one : index
  %sid32 = arith.index_cast %sid : index to i32
  %lane32 = arith.index_cast %lane : index to i32
  %size32 = arith.index_cast %size : index to i32
  gpuc.store %sid32, %ids[%j0] : !gpuc.ptr<i32, global>
  gpuc.store %lane32, %ids[%j1] : !gpuc.ptr<i32, global>
  gpuc.store %size32, %ids[%j2] : !gpuc.ptr<i32, global>
  gpuc.return
}
