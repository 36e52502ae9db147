// deferred_helper: x[i] = x[i] * x[i] + bias for every i < n (f32), the
// arithmetic done by @square_plus compiled as a job of its own (a deferred
// call): the pipeline materializes a private copy, calls it directly and drops
// the unused source. `no_inline` keeps the copy a function of its own, so the
// output shows it (a `.func` without `.visible` in PTX, `define internal` in
// LLVM IR).
// Launch: deferred_helper(x: f32*, bias: f32, n: i32) with one thread per
// element, e.g. block = (256,), grid = (ceil(n / 256),).
gpuc.func @deferred_helper(%x: !gpuc.ptr<f32, global>, %bias: f32, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = gpuc.deferred_call @square_plus(%v, %bias) #gpuc.job<helper, no_inline>
        : (f32, f32) -> f32
    gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

gpuc.func private @square_plus(%v: f32, %b: f32) -> f32 helper {
  %sq = arith.mulf %v, %v : f32
  %r = arith.addf %sq, %b : f32
  gpuc.return %r : f32
}
