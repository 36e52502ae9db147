// saxpy: y[i] = a * x[i] + y[i] for every i < n (f32).
// Launch: saxpy(a: f32, x: f32*, y: f32*, n: i32) with one thread per element,
// e.g. block = (256,), grid = (ceil(n / 256),); extra threads do nothing.
gpuc.func @saxpy(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>,
                 %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %yi = gpuc.load %y[%i] : !gpuc.ptr<f32, global>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
