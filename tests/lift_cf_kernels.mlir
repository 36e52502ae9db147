// Kernels of tests/test_lift_cf.py: barriers and subgroup shuffles inside
// unstructured control flow (cf branches), which `lift-cf` lifts into scf
// ops for the native target's work-group functions. 1-D blocks, one thread
// per element; shared buffers of 256 f32.

// out[i] = mode != 0 ? 2 * x[i ^ 1] : x[(t + 1) % block] + 1, a barrier on
// each side of a diamond, the result through the join's block argument.
gpuc.func @diamond(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                   %mode: i32) kernel {
  %buf = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %buf[%t] : !gpuc.ptr<f32, shared>
  %zero = arith.constant 0 : i32
  %c = arith.cmpi ne, %mode, %zero : i32
  cf.cond_br %c, ^then, ^else
^then:
  gpuc.barrier
  %one = arith.constant 1 : index
  %j = arith.xori %t, %one : index
  %a = gpuc.load %buf[%j] : !gpuc.ptr<f32, shared>
  %two = arith.constant 2.0 : f32
  %r1 = arith.mulf %a, %two : f32
  cf.br ^join(%r1 : f32)
^else:
  gpuc.barrier
  %b = gpuc.block_dim x
  %one_e = arith.constant 1 : index
  %k0 = arith.addi %t, %one_e : index
  %k = arith.remui %k0, %b : index
  %e = gpuc.load %buf[%k] : !gpuc.ptr<f32, shared>
  %onef = arith.constant 1.0 : f32
  %r2 = arith.addf %e, %onef : f32
  cf.br ^join(%r2 : f32)
^join(%r: f32):
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// `steps` rounds of acc[t] += acc[(t + 1) % block] in a cf loop with two
// barriers; then odd threads negate (a thread-dependent triangle after the
// loop, with no barrier in it); the loop counter leaves the loop too.
gpuc.func @rounds(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %steps: index) kernel {
  %buf = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %b = gpuc.block_dim x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %v : index, f32)
^head(%k: index, %acc: f32):
  %more = arith.cmpi ult, %k, %steps : index
  cf.cond_br %more, ^body, ^done
^body:
  gpuc.store %acc, %buf[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %n0 = arith.addi %t, %c1 : index
  %n1 = arith.remui %n0, %b : index
  %n = gpuc.load %buf[%n1] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %acc2 = arith.addf %acc, %n : f32
  %k2 = arith.addi %k, %c1 : index
  cf.br ^head(%k2, %acc2 : index, f32)
^done:
  %odd = arith.andi %t, %c1 : index
  %isodd = arith.cmpi ne, %odd, %c0 : index
  cf.cond_br %isodd, ^negate, ^store(%acc : f32)
^negate:
  %neg = arith.negf %acc : f32
  cf.br ^store(%neg : f32)
^store(%r: f32):
  %kf0 = arith.index_cast %k : index to i32
  %kf = arith.sitofp %kf0 : i32 to f32
  %s = arith.addf %r, %kf : f32
  gpuc.store %s, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// Early exits: mode 0 returns at once, mode 1 after writing x[i] + 1, other
// modes write 3 * x[(t + 1) % block] after a barrier.
gpuc.func @early_exit(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                      %mode: i32) kernel {
  %buf = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %skip = arith.cmpi eq, %mode, %zero : i32
  cf.cond_br %skip, ^return, ^first
^first:
  %quick = arith.cmpi eq, %mode, %one : i32
  cf.cond_br %quick, ^write_quick, ^exchange
^write_quick:
  %onef = arith.constant 1.0 : f32
  %q = arith.addf %v, %onef : f32
  gpuc.store %q, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
^exchange:
  gpuc.store %v, %buf[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %b = gpuc.block_dim x
  %c1 = arith.constant 1 : index
  %n0 = arith.addi %t, %c1 : index
  %n1 = arith.remui %n0, %b : index
  %n = gpuc.load %buf[%n1] : !gpuc.ptr<f32, shared>
  %three = arith.constant 3.0 : f32
  %r = arith.mulf %n, %three : f32
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  cf.br ^return
^return:
  gpuc.return
}

// cf.switch on sel: 0: x[i] + x[i ^ 1] (shuffle xor 1), 1 and -1:
// x[i ^ 2] (shuffle xor 2, through a case's block argument), other values:
// -x[i]; then one more shuffle after the join.
gpuc.func @switch(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %sel: i32) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.switch %sel : i32, [
    default: ^other,
    0: ^pair,
    1: ^quad(%v : f32),
    -1: ^quad(%v : f32)
  ]
^pair:
  %s, %sv = gpuc.shuffle xor %v, %c1 : f32
  %p = arith.addf %v, %s : f32
  cf.br ^join(%p : f32)
^quad(%w: f32):
  %q, %qv = gpuc.shuffle xor %w, %c2 : f32
  cf.br ^join(%q : f32)
^other:
  %n = arith.negf %v : f32
  cf.br ^join(%n : f32)
^join(%r: f32):
  %c4 = arith.constant 4 : i32
  %u, %uv = gpuc.shuffle xor %r, %c4 : f32
  %sum = arith.addf %r, %u : f32
  gpuc.store %sum, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// A cf loop with a shuffle in a diamond and a break: acc += acc[lane ^ 1]
// while k < steps, leaving early (with other values) when k == stop; the
// loop's two exit edges carry different arguments to one block.
gpuc.func @search(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %steps: index, %stop: index) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %half = arith.constant 0.5 : f32
  cf.br ^head(%c0, %v : index, f32)
^head(%k: index, %acc: f32):
  %more = arith.cmpi ult, %k, %steps : index
  cf.cond_br %more, ^body, ^exit(%acc, %k : f32, index)
^body:
  %even = arith.andi %k, %c1 : index
  %is_even = arith.cmpi eq, %even, %c0 : index
  cf.cond_br %is_even, ^mix, ^scale
^mix:
  %s, %sv = gpuc.shuffle xor %acc, %one : f32
  %m = arith.addf %acc, %s : f32
  cf.br ^next(%m : f32)
^scale:
  %h = arith.mulf %acc, %half : f32
  cf.br ^next(%h : f32)
^next(%acc2: f32):
  %at_stop = arith.cmpi eq, %k, %stop : index
  cf.cond_br %at_stop, ^exit(%acc2, %stop : f32, index), ^latch
^latch:
  %k2 = arith.addi %k, %c1 : index
  cf.br ^head(%k2, %acc2 : index, f32)
^exit(%r: f32, %kk: index):
  %kk0 = arith.index_cast %kk : index to i32
  %kf = arith.sitofp %kk0 : i32 to f32
  %res = arith.addf %r, %kf : f32
  gpuc.store %res, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// A helper (called, not inlined) with a barrier in a diamond.
gpuc.func @neighbour(%buf: !gpuc.ptr<f32, shared>, %t: index, %b: index,
                     %up: i1) -> f32 helper {
  gpuc.barrier
  cf.cond_br %up, ^next, ^prev
^next:
  %c1 = arith.constant 1 : index
  %n0 = arith.addi %t, %c1 : index
  %n1 = arith.remui %n0, %b : index
  cf.br ^read(%n1 : index)
^prev:
  %c1p = arith.constant 1 : index
  %p0 = arith.addi %t, %b : index
  %p1 = arith.subi %p0, %c1p : index
  %p2 = arith.remui %p1, %b : index
  cf.br ^read(%p2 : index)
^read(%at: index):
  %r = gpuc.load %buf[%at] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  gpuc.return %r : f32
}

gpuc.func @shift(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                 %up: i32) kernel {
  %buf = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %b = gpuc.block_dim x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v, %buf[%t] : !gpuc.ptr<f32, shared>
  %zero = arith.constant 0 : i32
  %u = arith.cmpi ne, %up, %zero : i32
  %r = gpuc.call @neighbour(%buf, %t, %b, %u)
      : (!gpuc.ptr<f32, shared>, index, index, i1) -> f32
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// A shuffle of a value recomputed from the thread index (the work-group
// function stores it for the lanes to read).
gpuc.func @shuffle_index(%out: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %b = gpuc.block_dim x
  %t0 = arith.index_cast %t : index to i32
  %val = arith.sitofp %t0 : i32 to f32
  %width = arith.index_cast %b : index to i32
  %offset = arith.constant 4 : i32
  %s, %valid = gpuc.shuffle xor %val, %offset, width %width : f32
  cf.cond_br %valid, ^join(%s : f32), ^invalid
^invalid:
  %m1 = arith.constant -1.0 : f32
  cf.br ^join(%m1 : f32)
^join(%r: f32):
  gpuc.store %r, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}

// A cf loop with barriers that returns from inside it: `steps` rounds of
// acc[t] += acc[(t + 1) % block]; after round `stop` it writes 10 * acc
// and returns, else acc after the loop.
gpuc.func @early_in_loop(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                         %steps: index, %stop: index) kernel {
  %buf = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %b = gpuc.block_dim x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %v : index, f32)
^head(%k: index, %acc: f32):
  %more = arith.cmpi ult, %k, %steps : index
  cf.cond_br %more, ^body, ^after
^body:
  gpuc.store %acc, %buf[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %n0 = arith.addi %t, %c1 : index
  %n1 = arith.remui %n0, %b : index
  %n = gpuc.load %buf[%n1] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %acc2 = arith.addf %acc, %n : f32
  %k2 = arith.addi %k, %c1 : index
  %at_stop = arith.cmpi eq, %k, %stop : index
  cf.cond_br %at_stop, ^early, ^head(%k2, %acc2 : index, f32)
^early:
  %ten = arith.constant 10.0 : f32
  %big = arith.mulf %acc2, %ten : f32
  gpuc.store %big, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
^after:
  gpuc.store %acc, %out[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
