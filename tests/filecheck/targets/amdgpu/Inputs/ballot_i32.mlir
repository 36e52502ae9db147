// An i32 ballot: every lane of a wave32, half of a wave64 (refused there).
gpuc.func @k(%x: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %x[%t] : !gpuc.ptr<i32, global>
  %z = arith.constant 0 : i32
  %p = arith.cmpi ne, %v, %z : i32
  %b = gpuc.ballot %p : i32
  gpuc.store %b, %x[%t] : !gpuc.ptr<i32, global>
  gpuc.return
}
