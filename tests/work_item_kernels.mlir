// Kernels with barriers in every place the native target's work-group
// functions must handle (tests/test_work_items.py runs them on native and
// spirv against numpy): in scf.while and nested scf.for loops, in scf.if and
// scf.index_switch on uniform conditions, in a non-inlined helper called from
// an always-inline one, values live across several barriers, and 1-D, 2-D
// and 3-D blocks of any size.

// scan: out[g] = inclusive prefix sum of x within g's block (0 past n), by
// Hillis-Steele steps ping-ponging between two halves of shared memory.
gpuc.func @scan(%x: !gpuc.ptr<i32, global>, %out: !gpuc.ptr<i32, global>,
                %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0 : i32
  %buf = gpuc.shared_alloc 2048 : !gpuc.ptr<i32, shared>
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  %g = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %g, %nn : index
  %v = scf.if %in -> (i32) {
    %xv = gpuc.load %x[%g] : !gpuc.ptr<i32, global>
    scf.yield %xv : i32
  } else {
    scf.yield %zero : i32
  }
  gpuc.store %v, %buf[%t] : !gpuc.ptr<i32, shared>
  gpuc.barrier
  %r:2 = scf.while (%off = %c1, %src = %c0) : (index, index) -> (index, index) {
    %more = arith.cmpi ult, %off, %bd : index
    scf.condition(%more) %off, %src : index, index
  } do {
  ^bb0(%o: index, %s: index):
    %si = arith.addi %s, %t : index
    %mine = gpuc.load %buf[%si] : !gpuc.ptr<i32, shared>
    %has = arith.cmpi uge, %t, %o : index
    %new = scf.if %has -> (i32) {
      %pi = arith.subi %si, %o : index
      %prev = gpuc.load %buf[%pi] : !gpuc.ptr<i32, shared>
      %sum = arith.addi %mine, %prev : i32
      scf.yield %sum : i32
    } else {
      scf.yield %mine : i32
    }
    %d = arith.subi %c1024, %s : index
    %di = arith.addi %d, %t : index
    gpuc.store %new, %buf[%di] : !gpuc.ptr<i32, shared>
    gpuc.barrier
    %o2 = arith.shli %o, %c1 : index
    scf.yield %o2, %d : index, index
  }
  scf.if %in {
    %fi = arith.addi %r#1, %t : index
    %res = gpuc.load %buf[%fi] : !gpuc.ptr<i32, shared>
    gpuc.store %res, %out[%g] : !gpuc.ptr<i32, global>
  }
  gpuc.return
}

// flip: a 2-D grid of 2-D blocks over a rows x cols array; each thread
// writes the value of the thread at the mirrored position of its block
// (both axes), 0 where that thread is outside the array.
gpuc.func @flip(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                %rows: i32, %cols: i32) kernel {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %tile = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_dim x
  %by = gpuc.block_dim y
  %gx = gpuc.global_id x
  %gy = gpuc.global_id y
  %nr = arith.index_cast %rows : i32 to index
  %nc = arith.index_cast %cols : i32 to index
  %rin = arith.cmpi ult, %gy, %nr : index
  %cin = arith.cmpi ult, %gx, %nc : index
  %in = arith.andi %rin, %cin : i1
  %row = arith.muli %gy, %nc : index
  %at = arith.addi %row, %gx : index
  %v = scf.if %in -> (f32) {
    %xv = gpuc.load %x[%at] : !gpuc.ptr<f32, global>
    scf.yield %xv : f32
  } else {
    scf.yield %zero : f32
  }
  %trow = arith.muli %ty, %bx : index
  %t = arith.addi %trow, %tx : index
  gpuc.store %v, %tile[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %mx0 = arith.subi %bx, %tx : index
  %mx = arith.subi %mx0, %c1 : index
  %my0 = arith.subi %by, %ty : index
  %my = arith.subi %my0, %c1 : index
  %mrow = arith.muli %my, %bx : index
  %m = arith.addi %mrow, %mx : index
  %w = gpuc.load %tile[%m] : !gpuc.ptr<f32, shared>
  scf.if %in {
    gpuc.store %w, %out[%at] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// rotate3d: a 1-D grid of 3-D blocks; with t the thread's linear index in
// its block and v = x[block * threads + t], out[...] = 3 v + (v of thread
// t + 1 mod threads). v is loaded before the barrier and used after it.
gpuc.func @rotate3d(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>)
    kernel {
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %tz = gpuc.thread_id z
  %bx = gpuc.block_dim x
  %by = gpuc.block_dim y
  %bz = gpuc.block_dim z
  %b = gpuc.block_id x
  %zy = arith.muli %tz, %by : index
  %zyy = arith.addi %zy, %ty : index
  %zyx = arith.muli %zyy, %bx : index
  %t = arith.addi %zyx, %tx : index
  %bxy = arith.muli %bx, %by : index
  %threads = arith.muli %bxy, %bz : index
  %base = arith.muli %b, %threads : index
  %g = arith.addi %base, %t : index
  %v = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %t1 = arith.addi %t, %c1 : index
  %nb = arith.remui %t1, %threads : index
  %w = gpuc.load %s[%nb] : !gpuc.ptr<f32, shared>
  %v3 = arith.mulf %v, %three : f32
  %r = arith.addf %v3, %w : f32
  gpuc.store %r, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}

// neighbour: the value of thread t + 1 mod block_dim.x (two barriers: the
// shared slots may be reused right after). Not inlined: the native target
// runs its barriers as part of its caller's work-group function.
gpuc.func private @neighbour(%s: !gpuc.ptr<f32, shared>, %v: f32) -> f32
    helper no_inline {
  %c1 = arith.constant 1 : index
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %t1 = arith.addi %t, %c1 : index
  %nb = arith.remui %t1, %bd : index
  %w = gpuc.load %s[%nb] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return %w : f32
}

// two_neighbours: always inlined into @helpers, calls @neighbour twice.
gpuc.func private @two_neighbours(%s: !gpuc.ptr<f32, shared>, %v: f32) -> f32
    helper always_inline {
  %a = gpuc.call @neighbour(%s, %v) : (!gpuc.ptr<f32, shared>, f32) -> f32
  %b = gpuc.call @neighbour(%s, %a) : (!gpuc.ptr<f32, shared>, f32) -> f32
  %r = arith.addf %a, %b : f32
  gpuc.return %r : f32
}

// helpers: out[g] = (x of thread t + 1) + (x of thread t + 2), mod the
// block, 0 for threads past n.
gpuc.func @helpers(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                   %n: i32) kernel {
  %zero = arith.constant 0.0 : f32
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %g = gpuc.global_id x
  %nn = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %g, %nn : index
  %v = scf.if %in -> (f32) {
    %xv = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
    scf.yield %xv : f32
  } else {
    scf.yield %zero : f32
  }
  %r = gpuc.call @two_neighbours(%s, %v) : (!gpuc.ptr<f32, shared>, f32) -> f32
  scf.if %in {
    gpuc.store %r, %out[%g] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

// nested: a = x[g]; `rounds` times, for j in 0..3: a = a / 2 + (a of thread
// t + j + 1 mod the block) / 4. Barriers in nested loops, a carried through
// both.
gpuc.func @nested(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %rounds: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  %g = gpuc.global_id x
  %nr = arith.index_cast %rounds : i32 to index
  %a0 = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  %a = scf.for %r = %c0 to %nr step %c1 iter_args(%acc = %a0) -> (f32) {
    %inner = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %acc) -> (f32) {
      gpuc.store %b, %s[%t] : !gpuc.ptr<f32, shared>
      gpuc.barrier
      %tj = arith.addi %t, %j : index
      %tj1 = arith.addi %tj, %c1 : index
      %nb = arith.remui %tj1, %bd : index
      %w = gpuc.load %s[%nb] : !gpuc.ptr<f32, shared>
      gpuc.barrier
      %bh = arith.mulf %b, %half : f32
      %wq = arith.mulf %w, %quarter : f32
      %next = arith.addf %bh, %wq : f32
      scf.yield %next : f32
    }
    scf.yield %inner : f32
  }
  gpuc.store %a, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}

// branchy: if flag != 0 (the same for the whole launch), out[g] = x of the
// mirrored thread of the block; else 2 x[g]. Then, by block_id.x mod 3:
// case 0 adds the value of thread 0 of the block (a barrier in a switch
// case), case 1 adds 1, otherwise nothing.
gpuc.func @branchy(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                   %flag: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %bd = gpuc.block_dim x
  %g = gpuc.global_id x
  %v = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  %on = arith.cmpi ne, %flag, %zero : i32
  %r = scf.if %on -> (f32) {
    gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %m0 = arith.subi %bd, %t : index
    %m = arith.subi %m0, %c1 : index
    %w = gpuc.load %s[%m] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    scf.yield %w : f32
  } else {
    %d = arith.mulf %v, %two : f32
    scf.yield %d : f32
  }
  %b = gpuc.block_id x
  %which = arith.remui %b, %c3 : index
  %final = scf.index_switch %which -> f32
  case 0 {
    gpuc.store %r, %s[%t] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %first = gpuc.load %s[%c0] : !gpuc.ptr<f32, shared>
    %sum = arith.addf %r, %first : f32
    scf.yield %sum : f32
  }
  case 1 {
    %p = arith.addf %r, %one : f32
    scf.yield %p : f32
  }
  default {
    scf.yield %r : f32
  }
  gpuc.store %final, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}

// agree: every thread reads flags[t] and syncs if it is non-zero; only
// defined when all the block's flags agree. out[g] = 1.
gpuc.func @agree(%flags: !gpuc.ptr<i32, global>, %out: !gpuc.ptr<i32, global>)
    kernel {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %t = gpuc.thread_id x
  %g = gpuc.global_id x
  %f = gpuc.load %flags[%t] : !gpuc.ptr<i32, global>
  %on = arith.cmpi ne, %f, %zero : i32
  scf.if %on {
    gpuc.barrier
  }
  gpuc.store %one, %out[%g] : !gpuc.ptr<i32, global>
  gpuc.return
}

// guards: out[g] = 1 (x < u) + 2 (x == u) + 4 (u > x) + 8 (x < u - 3,
// signed), x the thread's x index, each added by a region between barriers
// whose only op is the guarded update: the native target runs just the
// threads the guard lets through.
gpuc.func @guards(%out: !gpuc.ptr<i32, global>, %u: index) kernel {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %four = arith.constant 4 : i32
  %eight = arith.constant 8 : i32
  %c3 = arith.constant 3 : index
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_dim x
  %by = gpuc.block_dim y
  %b = gpuc.block_id x
  %row = arith.muli %ty, %bx : index
  %t = arith.addi %row, %tx : index
  %threads = arith.muli %bx, %by : index
  %base = arith.muli %b, %threads : index
  %g = arith.addi %base, %t : index
  gpuc.store %zero, %out[%g] : !gpuc.ptr<i32, global>
  gpuc.barrier
  %lt = arith.cmpi ult, %tx, %u : index
  scf.if %lt {
    %v = gpuc.load %out[%g] : !gpuc.ptr<i32, global>
    %w = arith.addi %v, %one : i32
    gpuc.store %w, %out[%g] : !gpuc.ptr<i32, global>
  }
  gpuc.barrier
  %eq = arith.cmpi eq, %tx, %u : index
  scf.if %eq {
    %v = gpuc.load %out[%g] : !gpuc.ptr<i32, global>
    %w = arith.addi %v, %two : i32
    gpuc.store %w, %out[%g] : !gpuc.ptr<i32, global>
  }
  gpuc.barrier
  %gt = arith.cmpi ugt, %u, %tx : index
  scf.if %gt {
    %v = gpuc.load %out[%g] : !gpuc.ptr<i32, global>
    %w = arith.addi %v, %four : i32
    gpuc.store %w, %out[%g] : !gpuc.ptr<i32, global>
  }
  gpuc.barrier
  %um3 = arith.subi %u, %c3 : index
  %slt = arith.cmpi slt, %tx, %um3 : index
  scf.if %slt {
    %v = gpuc.load %out[%g] : !gpuc.ptr<i32, global>
    %w = arith.addi %v, %eight : i32
    gpuc.store %w, %out[%g] : !gpuc.ptr<i32, global>
  }
  gpuc.return
}

// lanes: v = x of the thread's block (by linear thread index t), then
// out[g] = sum over j < k of v[j] * v[(t + j) mod threads]: a uniform loop
// reading shared memory, which the native target runs for groups of x lanes
// at once (and per thread for the x that do not fill a group).
gpuc.func @lanes(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                 %k: index) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_dim x
  %by = gpuc.block_dim y
  %b = gpuc.block_id x
  %row = arith.muli %ty, %bx : index
  %t = arith.addi %row, %tx : index
  %threads = arith.muli %bx, %by : index
  %base = arith.muli %b, %threads : index
  %g = arith.addi %base, %t : index
  %v = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %acc = scf.for %j = %c0 to %k step %c1 iter_args(%a = %zero) -> (f32) {
    %vj = gpuc.load %s[%j] : !gpuc.ptr<f32, shared>
    %tj = arith.addi %t, %j : index
    %m = arith.remui %tj, %threads : index
    %vm = gpuc.load %s[%m] : !gpuc.ptr<f32, shared>
    %p = arith.mulf %vj, %vm : f32
    %a2 = arith.addf %a, %p : f32
    scf.yield %a2 : f32
  }
  gpuc.store %acc, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}

// one_thread: after a barrier, each thread loads w = x[block, (t + 1) % bx]
// from shared memory; in the middle of that region, thread u (if any) writes
// its own x and the block's row sum of shared memory into last[block]; then
// out[g] = w + w. w, loaded before the `t == u` test and used after it,
// must survive the test (the native target runs it as a thread loop of its
// own, for thread u only).
gpuc.func @one_thread(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                      %last: !gpuc.ptr<f32, global>, %u: index) kernel {
  %c1 = arith.constant 1 : index
  %s = gpuc.shared_alloc 256 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %bx = gpuc.block_dim x
  %b = gpuc.block_id x
  %base = arith.muli %b, %bx : index
  %g = arith.addi %base, %t : index
  %v = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  gpuc.store %v, %s[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %t1 = arith.addi %t, %c1 : index
  %n = arith.remui %t1, %bx : index
  %w = gpuc.load %s[%n] : !gpuc.ptr<f32, shared>
  %is = arith.cmpi eq, %u, %t : index
  scf.if %is {
    %mine = gpuc.load %s[%t] : !gpuc.ptr<f32, shared>
    gpuc.store %mine, %last[%b] : !gpuc.ptr<f32, global>
  }
  %w2 = arith.addf %w, %w : f32
  gpuc.store %w2, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}

// strided: block-stride loops after a barrier (`for j in range(t + off, n,
// block_dim)`), which the native target runs for groups of x lanes, each
// lane with its own first j and trip count: per block b (a row of n floats
// of x), out[b * block_dim + t] = the sum of x[b, j] * s over the thread's j,
// s = the block's first x read through shared memory; and each thread
// writes y[b, j] = x[b, j] + s at its own j.
gpuc.func @strided(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                   %out: !gpuc.ptr<f32, global>, %n: index, %off: index) kernel {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %s = gpuc.shared_alloc 1 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %bx = gpuc.block_dim x
  %b = gpuc.block_id x
  %rowbase = arith.muli %b, %n : index
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %v = gpuc.load %x[%rowbase] : !gpuc.ptr<f32, global>
    gpuc.store %v, %s[%c0] : !gpuc.ptr<f32, shared>
  }
  gpuc.barrier
  %scale = gpuc.load %s[%c0] : !gpuc.ptr<f32, shared>
  %lb = arith.addi %t, %off : index
  %acc = scf.for %j = %lb to %n step %bx iter_args(%a = %zero) -> (f32) {
    %at = arith.addi %rowbase, %j : index
    %xj = gpuc.load %x[%at] : !gpuc.ptr<f32, global>
    %p = arith.mulf %xj, %scale : f32
    %a2 = arith.addf %a, %p : f32
    scf.yield %a2 : f32
  }
  scf.for %j = %lb to %n step %bx {
    %at = arith.addi %rowbase, %j : index
    %xj = gpuc.load %x[%at] : !gpuc.ptr<f32, global>
    %sum = arith.addf %xj, %scale : f32
    gpuc.store %sum, %y[%at] : !gpuc.ptr<f32, global>
  }
  %ob = arith.muli %b, %bx : index
  %o = arith.addi %ob, %t : index
  gpuc.store %acc, %out[%o] : !gpuc.ptr<f32, global>
  gpuc.return
}

// lanes_and_atomics: each thread adds 1 to a shared counter (an atomic), the
// block syncs, and out[g] = lane_id * 1000 + the count (the block's threads).
gpuc.func @lanes_and_atomics(%out: !gpuc.ptr<i32, global>) kernel {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %thousand = arith.constant 1000 : i32
  %count = gpuc.shared_alloc 1 : !gpuc.ptr<i32, shared>
  %t = gpuc.thread_id x
  %g = gpuc.global_id x
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    gpuc.store %zero, %count[%c0] : !gpuc.ptr<i32, shared>
  }
  gpuc.barrier
  %old = gpuc.atomic_rmw add %count[%c0], %one : !gpuc.ptr<i32, shared>
  gpuc.barrier
  %n = gpuc.load %count[%c0] : !gpuc.ptr<i32, shared>
  %lane = gpuc.lane_id
  %lane32 = arith.index_cast %lane : index to i32
  %l = arith.muli %lane32, %thousand : i32
  %r = arith.addi %l, %n : i32
  gpuc.store %r, %out[%g] : !gpuc.ptr<i32, global>
  gpuc.return
}

// picked: after a barrier, thread (u, v) of each block (if any) writes into
// picked[block] what thread (bx - 1 - u, v) put in shared memory. The test
// is `tid.y == v && tid.x == u`: the native target runs that region as a
// loop over x = u only, each thread still testing the whole condition (as a
// block sum's `tid.x == 0 && tid.y == 0 && tid.z == 0`).
gpuc.func @picked(%x: !gpuc.ptr<f32, global>, %picked: !gpuc.ptr<f32, global>,
                  %u: index, %v: index) kernel {
  %c1 = arith.constant 1 : index
  %s = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_dim x
  %by = gpuc.block_dim y
  %b = gpuc.block_id x
  %row = arith.muli %ty, %bx : index
  %slot = arith.addi %row, %tx : index
  %threads = arith.muli %bx, %by : index
  %base = arith.muli %b, %threads : index
  %g = arith.addi %base, %slot : index
  %val = gpuc.load %x[%g] : !gpuc.ptr<f32, global>
  gpuc.store %val, %s[%slot] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %on_y = arith.cmpi eq, %ty, %v : index
  %on_x = arith.cmpi eq, %tx, %u : index
  %here = arith.andi %on_y, %on_x : i1
  scf.if %here {
    %last = arith.subi %bx, %c1 : index
    %mx = arith.subi %last, %tx : index
    %mirror = arith.addi %row, %mx : index
    %m = gpuc.load %s[%mirror] : !gpuc.ptr<f32, shared>
    gpuc.store %m, %picked[%b] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
