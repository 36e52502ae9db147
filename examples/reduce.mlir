// reduce: out[0] += sum(x[0:n]) (f32), one partial sum per block.
// Launch: reduce(x: f32*, out: f32*, n: i32) with a power-of-two block of at
// most 1024 threads, e.g. block = (256,), grid = (ceil(n / 256),); out[0] must
// be zeroed first. Each block sums its elements in shared memory (a tree of
// barriers) and thread 0 adds the block's sum to out[0] atomically, so the
// order of the additions, and the last bits of the result, vary between runs.
gpuc.func @reduce(%x: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                  %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %partial = gpuc.shared_alloc 1024 : !gpuc.ptr<f32, shared>
  %t = gpuc.thread_id x
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  %v = scf.if %in_range -> (f32) {
    %xi = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    scf.yield %xi : f32
  } else {
    scf.yield %zero : f32
  }
  gpuc.store %v, %partial[%t] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  %threads = gpuc.block_dim x
  %half = arith.shrui %threads, %c1 : index
  %last = scf.while (%stride = %half) : (index) -> index {
    %more = arith.cmpi ugt, %stride, %c0 : index
    scf.condition(%more) %stride : index
  } do {
  ^bb0(%stride: index):
    %active = arith.cmpi ult, %t, %stride : index
    scf.if %active {
      %other = arith.addi %t, %stride : index
      %mine = gpuc.load %partial[%t] : !gpuc.ptr<f32, shared>
      %theirs = gpuc.load %partial[%other] : !gpuc.ptr<f32, shared>
      %sum = arith.addf %mine, %theirs : f32
      gpuc.store %sum, %partial[%t] : !gpuc.ptr<f32, shared>
    }
    gpuc.barrier
    %next = arith.shrui %stride, %c1 : index
    scf.yield %next : index
  }
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %total = gpuc.load %partial[%c0] : !gpuc.ptr<f32, shared>
    %old = gpuc.atomic_rmw add %out[%c0], %total : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
