gpuc.func private @h(%out: !gpuc.ptr<f32, global>, %v: index) helper no_inline {
  %t = gpuc.thread_id x
  gpuc.barrier
  %f = arith.index_cast %v : index to i32
  %g = arith.sitofp %f : i32 to f32
  gpuc.store %g, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @k(%a: !gpuc.ptr<f32, global>) kernel {
  %c3 = arith.constant 3 : index
  %t = gpuc.thread_id x
  %v = arith.muli %t, %c3 : index
  gpuc.call @h(%a, %v) : (!gpuc.ptr<f32, global>, index) -> ()
  gpuc.return
}
