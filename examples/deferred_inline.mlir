// deferred_inline: y[i] = 3 * x[i]^2 + 2 * x[i] + 1 for every i < n (f32),
// computed by @poly through a wrapper that gpuc's mock_autodiff generator
// makes (as an autodiff tool wraps the function it differentiates) with its
// opt-in `always_inline` flag: the wrapper is inlined and dropped at the
// dialect level, so the output holds one function, the kernel (one `.entry`
// and no `.func` in PTX, one OpFunction in SPIR-V).
// Launch: deferred_inline(x: f32*, y: f32*, n: i32) with one thread per
// element, e.g. block = (256,), grid = (ceil(n / 256),).
gpuc.func @deferred_inline(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                           %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = gpuc.deferred_call @poly(%v)
        #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}>
        : (f32) -> f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

gpuc.func private @poly(%v: f32) -> f32 helper {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %a = arith.mulf %three, %v : f32
  %b = arith.addf %a, %two : f32
  %c = arith.mulf %b, %v : f32
  %r = arith.addf %c, %one : f32
  gpuc.return %r : f32
}
