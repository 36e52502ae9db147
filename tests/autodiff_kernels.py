"""Kernels written to exercise autodiff: loop-carried values, nested
conditionals, helpers three deep, recursion through no_inline helpers,
softmax with shared memory. Each is f32 text; tests make the f64 twin."""

LOOP = """
// y[i] = the 6th iterate of acc = acc * x + sin(acc), from acc = x; and a
// while loop: z[i] = x grown by 1.5 * v + 0.25 until past 4.
gpuc.func @loop(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                %z: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %acc = scf.for %j = %c0 to %c6 step %c1 iter_args(%a = %v) -> (f32) {
      %m = arith.mulf %a, %v : f32
      %s = math.sin %a : f32
      %r = arith.addf %m, %s : f32
      scf.yield %r : f32
    }
    gpuc.store %acc, %y[%i] : !gpuc.ptr<f32, global>
    %limit = arith.constant 4.0 : f32
    %grow = arith.constant 1.5 : f32
    %step = arith.constant 0.25 : f32
    %av = math.absf %v : f32
    %w = scf.while (%u = %av) : (f32) -> f32 {
      %small = arith.cmpf olt, %u, %limit : f32
      scf.condition(%small) %u : f32
    } do {
    ^bb0(%u: f32):
      %g = arith.mulf %u, %grow : f32
      %g2 = arith.addf %g, %step : f32
      scf.yield %g2 : f32
    }
    gpuc.store %w, %z[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

BRANCHES = """
// Nested conditionals: y[i] = x > 0 ? (x > 1 ? x * x : exp(x)) : -x * cos(x).
gpuc.func @branches(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                    %n: i32) kernel {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %pos = arith.cmpf ogt, %v, %zero : f32
    %r = scf.if %pos -> (f32) {
      %big = arith.cmpf ogt, %v, %one : f32
      %p = scf.if %big -> (f32) {
        %sq = arith.mulf %v, %v : f32
        scf.yield %sq : f32
      } else {
        %e = math.exp %v : f32
        scf.yield %e : f32
      }
      scf.yield %p : f32
    } else {
      %c = math.cos %v : f32
      %nv = arith.negf %v : f32
      %q = arith.mulf %nv, %c : f32
      scf.yield %q : f32
    }
    %t = arith.select %pos, %r, %v : f32
    gpuc.store %t, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

HELPERS = """
// Helpers three deep, called plainly and as deferred jobs.
gpuc.func private @h3(%a: f32, %b: f32) -> f32 helper {
  %p = arith.mulf %a, %b : f32
  %t = math.tanh %p : f32
  gpuc.return %t : f32
}
gpuc.func private @h2(%a: f32) -> f32 helper {
  %s = math.sqrt %a : f32
  %r = gpuc.call @h3(%s, %a) : (f32, f32) -> f32
  %d = arith.divf %r, %a : f32
  gpuc.return %d : f32
}
gpuc.func private @h1(%a: f32, %k: i32) -> f32 helper {
  %kf = arith.sitofp %k : i32 to f32
  %m = arith.mulf %a, %kf : f32
  %r = gpuc.deferred_call @h2(%m) #gpuc.job<helper> : (f32) -> f32
  %l = math.log %a : f32
  %s = arith.addf %r, %l : f32
  gpuc.return %s : f32
}
gpuc.func @helpers(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                   %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %a = math.absf %v : f32
    %c = arith.constant 0.5 : f32
    %p = arith.addf %a, %c : f32
    %two = arith.constant 2 : i32
    %r = gpuc.call @h1(%p, %two) : (f32, i32) -> f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

RECURSION = """
// Recursion through a no_inline helper: y[i] = x^(2 + i % 3) by rpow.
gpuc.func private @rpow(%x: f32, %k: i32) -> f32 helper no_inline {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %done = arith.cmpi eq, %k, %c0 : i32
  %r = scf.if %done -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %k1 = arith.subi %k, %c1 : i32
    %rest = gpuc.call @rpow(%x, %k1) : (f32, i32) -> f32
    %p = arith.mulf %x, %rest : f32
    scf.yield %p : f32
  }
  gpuc.return %r : f32
}
gpuc.func @recursion(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                     %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %c3 = arith.constant 3 : index
    %m = arith.remui %i, %c3 : index
    %mi = arith.index_cast %m : index to i32
    %c2 = arith.constant 2 : i32
    %k = arith.addi %mi, %c2 : i32
    %r = gpuc.call @rpow(%v, %k) : (f32, i32) -> f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

SOFTMAX = """
// softmax of each row of 64 f32, one block of 64 threads per row:
// y = exp(x - max(x)) / sum(exp(x - max(x))), through shared memory.
gpuc.func @softmax(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %values = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %exps = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %row = gpuc.block_id x
  %base = arith.muli %row, %c64 : index
  %idx = arith.addi %base, %t : index
  %v = gpuc.load %x[%idx] : !gpuc.ptr<f32, global>
  gpuc.store %v, %values[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %first = gpuc.load %values[%c0] : !gpuc.ptr<f32, shared>
  %mx = scf.for %j = %c1 to %c64 step %c1 iter_args(%m = %first) -> (f32) {
    %e = gpuc.load %values[%j] : !gpuc.ptr<f32, shared>
    %m2 = arith.maximumf %m, %e : f32
    scf.yield %m2 : f32
  }
  %shifted = arith.subf %v, %mx : f32
  %ex = math.exp %shifted : f32
  gpuc.store %ex, %exps[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %j = %c0 to %c64 step %c1 iter_args(%s = %zero) -> (f32) {
    %e = gpuc.load %exps[%j] : !gpuc.ptr<f32, shared>
    %s2 = arith.addf %s, %e : f32
    scf.yield %s2 : f32
  }
  %out = arith.divf %ex, %sum : f32
  gpuc.store %out, %y[%idx] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""

POINTER_HELPERS = """
// Helpers that take pointers (inlined by reverse mode, jobs in forward mode):
// y[i] = x[i] * exp(x[i]) through @scale_into, and y[i] += sin(x[i]) by a
// deferred call of @add_sine.
gpuc.func private @scale_into(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                              %i: index) helper {
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %e = math.exp %v : f32
  %p = arith.mulf %v, %e : f32
  gpuc.store %p, %y[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @add_sine(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                            %i: index) helper {
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %s = math.sin %v : f32
  %w = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
  %r = arith.addf %w, %s : f32
  gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @pointer_helpers(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                           %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    gpuc.call @scale_into(%x, %y, %i)
        : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index) -> ()
    gpuc.deferred_call @add_sine(%x, %y, %i) #gpuc.job<helper>
        : (!gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index) -> ()
  }
  gpuc.return
}
"""

ROWS = """
// out[c] = in[c] * in[c] * (nb[c] + nb[c + 1]) + sin(in[c]) on an ny x nx
// grid (c = y * nx + x; nb[c + 1] is 0 past a row's end): a 2-D launch in
// which each thread owns element c of `in` (plain adjoint updates, the
// single-writer rule) while `nb` is shared with the left neighbour (atomic).
gpuc.func @rows(%in: !gpuc.ptr<f32, global>, %nb: !gpuc.ptr<f32, global>,
                %out: !gpuc.ptr<f32, global>, %nx: i32, %ny: i32) kernel {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %w = arith.index_cast %nx : i32 to index
  %h = arith.index_cast %ny : i32 to index
  %x_in = arith.cmpi ult, %x, %w : index
  %y_in = arith.cmpi ult, %y, %h : index
  %inside = arith.andi %y_in, %x_in : i1
  scf.if %inside {
    %row = arith.muli %y, %w : index
    %c = arith.addi %row, %x : index
    %v = gpuc.load %in[%c] : !gpuc.ptr<f32, global>
    %last = arith.subi %w, %c1 : index
    %has_next = arith.cmpi ult, %x, %last : index
    %q = scf.if %has_next -> (f32) {
      %next = arith.addi %c, %c1 : index
      %n = gpuc.load %nb[%next] : !gpuc.ptr<f32, global>
      scf.yield %n : f32
    } else {
      scf.yield %zero : f32
    }
    %p = gpuc.load %nb[%c] : !gpuc.ptr<f32, global>
    %v2 = gpuc.load %in[%c] : !gpuc.ptr<f32, global>
    %s = arith.addf %p, %q : f32
    %vv = arith.mulf %v, %v2 : f32
    %m = arith.mulf %vv, %s : f32
    %sv = math.sin %v : f32
    %r = arith.addf %m, %sv : f32
    gpuc.store %r, %out[%c] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

SCRATCH = """
// Allocations inside scf regions, which reverse mode hoists. @scratch: a
// private buffer made in each iteration of a loop (whose carried value is
// replayed). @tile: a shared tile made under a uniform scf.if, exchanged
// between neighbouring threads across a barrier (block size 64). (The
// native target keeps private arrays out of kernels with barriers.)
gpuc.func @scratch(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                   %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %quarter = arith.constant 0.25 : f32
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %quarter) -> (f32) {
      %buf = gpuc.private_alloc 2 : !gpuc.ptr<f32, local>
      %vv = arith.mulf %v, %v : f32
      gpuc.store %vv, %buf[%c0] : !gpuc.ptr<f32, local>
      %s = math.sin %a : f32
      %sv = arith.addf %s, %v : f32
      gpuc.store %sv, %buf[%c1] : !gpuc.ptr<f32, local>
      %p = gpuc.load %buf[%c0] : !gpuc.ptr<f32, local>
      %q = gpuc.load %buf[%c1] : !gpuc.ptr<f32, local>
      %pq = arith.mulf %p, %q : f32
      %r = arith.addf %pq, %a : f32
      scf.yield %r : f32
    }
    gpuc.store %acc, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
gpuc.func @tile(%x: !gpuc.ptr<f32, global>, %z: !gpuc.ptr<f32, global>,
                %n: i32) kernel {
  %c0_i32 = arith.constant 0 : i32
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %i = gpuc.global_id x
  %t = gpuc.thread_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  %v = scf.if %in -> (f32) {
    %l = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    scf.yield %l : f32
  } else {
    scf.yield %zero : f32
  }
  %some = arith.cmpi sgt, %n, %c0_i32 : i32
  scf.if %some {
    %tile = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
    gpuc.store %v, %tile[%t] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %other = arith.xori %t, %c1 : index
    %w = gpuc.load %tile[%other] : !gpuc.ptr<f32, shared>
    %vw = arith.mulf %v, %w : f32
    %e = math.exp %vw : f32
    scf.if %in {
      gpuc.store %e, %z[%i] : !gpuc.ptr<f32, global>
    }
  }
  gpuc.return
}
"""

GROW = """
// An scf.while whose scf.condition passes on a value its 'before' region
// computes (not the carried one), which reverse mode rotates: u grows by
// u * m + 0.25, then + 0.1 * sin, until past 4; y[i] is the value passed on
// at the exit.
gpuc.func @grow(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                %n: i32) kernel {
  %half = arith.constant 0.5 : f32
  %more = arith.constant 1.1 : f32
  %quarter = arith.constant 0.25 : f32
  %tenth = arith.constant 0.1 : f32
  %limit = arith.constant 4.0 : f32
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %av = math.absf %v : f32
    %m = arith.addf %av, %more : f32
    %u0 = arith.addf %av, %half : f32
    %w = scf.while (%u = %u0) : (f32) -> f32 {
      %g = arith.mulf %u, %m : f32
      %g2 = arith.addf %g, %quarter : f32
      %small = arith.cmpf olt, %u, %limit : f32
      scf.condition(%small) %g2 : f32
    } do {
    ^bb0(%h: f32):
      %s = math.sin %h : f32
      %ts = arith.mulf %s, %tenth : f32
      %h2 = arith.addf %h, %ts : f32
      scf.yield %h2 : f32
    }
    gpuc.store %w, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

DOT = """
// y[i] = sum over k < m of w[k] * sin(x[i] * w[k]): x[i] is read in every
// iteration (its adjoint is summed in a register and added once, after the
// loop), w[k] by every thread (an atomic add per iteration).
gpuc.func @dot(%w: !gpuc.ptr<f32, global>, %x: !gpuc.ptr<f32, global>,
               %y: !gpuc.ptr<f32, global>, %n: i32, %m: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %mi = arith.index_cast %m : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %acc = scf.for %k = %c0 to %mi step %c1 iter_args(%s = %zero) -> (f32) {
      %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
      %wk = gpuc.load %w[%k] : !gpuc.ptr<f32, global>
      %p = arith.mulf %xi, %wk : f32
      %sp = math.sin %p : f32
      %t = arith.mulf %wk, %sp : f32
      %s2 = arith.addf %s, %t : f32
      scf.yield %s2 : f32
    }
    gpuc.store %acc, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""

POINTERS = """
// Calls through function pointers the generator can trace: gpuc.func_addr
// of a helper, gpuc.deferred_addr of a helper job. y[i] = h(x) + g(x * x).
gpuc.func private @h(%a: f32) -> f32 helper {
  %s = math.sin %a : f32
  %r = arith.mulf %s, %a : f32
  gpuc.return %r : f32
}
gpuc.func private @g(%a: f32) -> f32 helper {
  %e = math.exp %a : f32
  gpuc.return %e : f32
}
gpuc.func @pointers(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                    %n: i32) kernel {
  %i = gpuc.global_id x
  %ni = arith.index_cast %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %fh = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32>
    %fg = gpuc.deferred_addr @g #gpuc.job<helper, no_inline>
        : !gpuc.funcptr<(f32) -> f32>
    %a = gpuc.call_indirect %fh(%v) : !gpuc.funcptr<(f32) -> f32>
    %vv = arith.mulf %v, %v : f32
    %b = gpuc.call_indirect %fg(%vv) : !gpuc.funcptr<(f32) -> f32>
    %r = arith.addf %a, %b : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
"""
