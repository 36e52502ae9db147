// A fence under a condition computed from the thread index.
gpuc.func @k(%p: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %c = arith.constant 3 : index
  %lt = arith.cmpi ult, %t, %c : index
  scf.if %lt {
    %x = gpuc.load %p[%t] : !gpuc.ptr<i32, global>
    gpuc.fence device seq_cst
    gpuc.store %x, %p[%t] : !gpuc.ptr<i32, global>
  }
  gpuc.return
}
