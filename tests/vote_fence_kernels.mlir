// Kernels of tests/test_vote_fence.py: subgroup votes and ballots (one thread
// per element, 1-D blocks; each thread writes its subgroup id, lane and size
// as tests/subgroup_kernels.mlir's do), and fences ordering a last-block sum.

// p = x[i] > %threshold (signed). out[3n]: vote any, vote all, the i32
// ballot; wide[n]: the i64 ballot.
gpuc.func @votes(%x: !gpuc.ptr<i32, global>, %threshold: i32,
                 %out: !gpuc.ptr<i32, global>, %wide: !gpuc.ptr<i64, global>,
                 %ids: !gpuc.ptr<i32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<i32, global>
  %p = arith.cmpi sgt, %v, %threshold : i32
  %any = gpuc.vote any %p
  %all = gpuc.vote all %p
  %b = gpuc.ballot %p : i32
  %w = gpuc.ballot %p : i64
  %n = gpuc.grid_dim x
  %bd = gpuc.block_dim x
  %total = arith.muli %n, %bd : index
  %i1 = arith.addi %i, %total : index
  %i2 = arith.addi %i1, %total : index
  %any32 = arith.extui %any : i1 to i32
  %all32 = arith.extui %all : i1 to i32
  gpuc.store %any32, %out[%i] : !gpuc.ptr<i32, global>
  gpuc.store %all32, %out[%i1] : !gpuc.ptr<i32, global>
  gpuc.store %b, %out[%i2] : !gpuc.ptr<i32, global>
  gpuc.store %w, %wide[%i] : !gpuc.ptr<i64, global>
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

// CUDA's threadfence reduction: thread 0 of each block sums its block's
// elements into partial[block], fences at device scope and counts the block
// done; the block that counts last fences again (acquire) and sums every
// partial into out[0]. Every thread also fences at block and system scope.
gpuc.func @last_block_sum(%x: !gpuc.ptr<i64, global>, %partial: !gpuc.ptr<i64, global>,
                          %count: !gpuc.ptr<i32, global>,
                          %out: !gpuc.ptr<i64, global>) kernel {
  %t = gpuc.thread_id x
  %blk = gpuc.block_id x
  %bd = gpuc.block_dim x
  %grid = gpuc.grid_dim x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  gpuc.fence block acq_rel
  gpuc.fence system seq_cst
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %base = arith.muli %blk, %bd : index
    %end = arith.addi %base, %bd : index
    %sum = scf.for %j = %base to %end step %c1 iter_args(%acc = %zero) -> (i64) {
      %e = gpuc.load %x[%j] : !gpuc.ptr<i64, global>
      %next = arith.addi %acc, %e : i64
      scf.yield %next : i64
    }
    gpuc.store %sum, %partial[%blk] : !gpuc.ptr<i64, global>
    gpuc.fence device seq_cst
    %one = arith.constant 1 : i32
    %done = gpuc.atomic_rmw add %count[%c0], %one : !gpuc.ptr<i32, global>
    %grid32 = arith.index_cast %grid : index to i32
    %last = arith.subi %grid32, %one : i32
    %is_last = arith.cmpi eq, %done, %last : i32
    scf.if %is_last {
      gpuc.fence device acquire
      %all = scf.for %k = %c0 to %grid step %c1 iter_args(%acc = %zero) -> (i64) {
        %p = gpuc.load %partial[%k] : !gpuc.ptr<i64, global>
        %next = arith.addi %acc, %p : i64
        scf.yield %next : i64
      }
      gpuc.store %all, %out[%c0] : !gpuc.ptr<i64, global>
    }
  }
  gpuc.return
}

// A ballot in a helper that is not inlined (on native, its kernel's
// work-group function runs the helper's body itself).
gpuc.func private @mask_of(%p: i1) -> i64 helper no_inline {
  %m = gpuc.ballot %p : i64
  gpuc.return %m : i64
}

gpuc.func @in_helper(%x: !gpuc.ptr<i32, global>, %threshold: i32,
                     %wide: !gpuc.ptr<i64, global>, %ids: !gpuc.ptr<i32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<i32, global>
  %p = arith.cmpi sgt, %v, %threshold : i32
  %w = gpuc.call @mask_of(%p) : (i1) -> i64
  gpuc.store %w, %wide[%i] : !gpuc.ptr<i64, global>
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
