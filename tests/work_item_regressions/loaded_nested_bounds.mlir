gpuc.func @k(%np: !gpuc.ptr<i32, global>, %out: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %t = gpuc.thread_id x
  %ni = gpuc.load %np[%c0] : !gpuc.ptr<i32, global>
  %n = arith.index_cast %ni : i32 to index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %i step %c1 {
      %v = gpuc.load %out[%t] : !gpuc.ptr<f32, global>
      %w = arith.addf %v, %one : f32
      gpuc.store %w, %out[%t] : !gpuc.ptr<f32, global>
      gpuc.barrier
    }
  }
  gpuc.return
}
