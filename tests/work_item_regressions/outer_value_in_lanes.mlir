gpuc.func @k(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %sh = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %x0 = gpuc.load %x[%t] : !gpuc.ptr<f32, global>
  %res = scf.for %k = %c0 to %c2 step %c1 iter_args(%s = %x0) -> (f32) {
    gpuc.store %s, %sh[%t] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = gpuc.load %sh[%j] : !gpuc.ptr<f32, shared>
      %p = arith.addf %acc, %v : f32
      %q = arith.addf %p, %s : f32
      scf.yield %q : f32
    }
    gpuc.barrier
    scf.yield %r : f32
  }
  gpuc.store %res, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
