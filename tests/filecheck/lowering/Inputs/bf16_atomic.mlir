// bf16 atomics (tests/filecheck/lowering/bf16_atomics.mlir): add, max, min
// and exchange, in global and shared memory, compiled for every target.
gpuc.func @add(%a: !gpuc.ptr<bf16, global>, %v: !gpuc.ptr<bf16, global>) kernel {
  %x = gpuc.load %v : !gpuc.ptr<bf16, global>
  %o = gpuc.atomic_rmw add %a, %x : !gpuc.ptr<bf16, global>
  %m = gpuc.atomic_rmw max %a, %x : !gpuc.ptr<bf16, global>
  %n = gpuc.atomic_rmw min %a, %x : !gpuc.ptr<bf16, global>
  %e = gpuc.atomic_rmw exchange %a, %o : !gpuc.ptr<bf16, global>
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<bf16, shared>
  %i = gpuc.thread_id x
  %p = gpuc.atomic_rmw add %s[%i], %x : !gpuc.ptr<bf16, shared>
  gpuc.barrier
  %t = gpuc.load %s[%i] : !gpuc.ptr<bf16, shared>
  gpuc.store %t, %v[%i] : !gpuc.ptr<bf16, global>
  gpuc.return
}
