gpuc.func private @h(%sh: !gpuc.ptr<f32, shared>, %x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>, %n: index) helper no_inline {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %t = gpuc.thread_id x
  %xv = gpuc.load %x[%t] : !gpuc.ptr<f32, global>
  gpuc.store %xv, %sh[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %m = arith.addi %n, %c1 : index
  %r = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = gpuc.load %sh[%j] : !gpuc.ptr<f32, shared>
    %p = arith.addf %acc, %v : f32
    scf.yield %p : f32
  }
  gpuc.store %r, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.barrier
  gpuc.return
}
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>, %nb: !gpuc.ptr<i32, global>) kernel {
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %sh = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  gpuc.call @h(%sh, %x, %a, %c3) : (!gpuc.ptr<f32, shared>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index) -> ()
  %ni = gpuc.load %nb[%c0] : !gpuc.ptr<i32, global>
  %n = arith.index_cast %ni : i32 to index
  gpuc.call @h(%sh, %x, %b, %n) : (!gpuc.ptr<f32, shared>, !gpuc.ptr<f32, global>, !gpuc.ptr<f32, global>, index) -> ()
  gpuc.return
}
