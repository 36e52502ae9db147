gpuc.func private @h(%out: !gpuc.ptr<f32, global>, %v: f32) helper no_inline {
  %t = gpuc.thread_id x
  gpuc.barrier
  gpuc.store %v, %out[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func @k(%in: !gpuc.ptr<f32, global>, %a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>) kernel {
  %one = arith.constant 1.0 : f32
  gpuc.call @h(%a, %one) : (!gpuc.ptr<f32, global>, f32) -> ()
  %t = gpuc.thread_id x
  %x = gpuc.load %in[%t] : !gpuc.ptr<f32, global>
  gpuc.call @h(%b, %x) : (!gpuc.ptr<f32, global>, f32) -> ()
  gpuc.return
}
