// child_launch: x[i] = 2 * x[i] for every i < n (f32), done by a child kernel
// that thread 0 of the parent's first block launches from the device over
// ceil(n / 256) blocks of 256 threads (a deferred launch: the child is a
// kernel job, an entrypoint of its own next to its parent).
// Launch: child_launch(x: f32*, n: i32) with grid = (1,), block = (1,) (more
// threads launch nothing more). Only the ptx target can express it (through
// the CUDA device runtime, so the PTX must be linked with libcudadevrt);
// spirv and native reject it with a diagnostic.
gpuc.func @child_launch(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %threads = arith.constant 256 : index
  %i = gpuc.global_id x
  %first = arith.cmpi eq, %i, %c0 : index
  scf.if %first {
    %count = arith.index_cast %n : i32 to index
    %blocks = arith.ceildivui %count, %threads : index
    gpuc.deferred_launch @double grid(%blocks) block(%threads) (%x, %n)
        #gpuc.job<kernel> : (!gpuc.ptr<f32, global>, i32)
  }
  gpuc.return
}

gpuc.func private @double(%x: !gpuc.ptr<f32, global>, %n: i32) helper {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = arith.addf %v, %v : f32
    gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
