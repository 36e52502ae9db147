// histogram: bins[v & 255] += 1 for every v in data[0:n] (i32 values, 256 i32 bins).
// Launch: histogram(data: i32*, bins: i32*, n: i32) with any 1-D grid and block,
// e.g. block = (256,), grid = (min(ceil(n / 256), 1024),); bins (256 elements)
// must be zeroed first. Threads stride over the data (a grid smaller than n
// still covers it); each block counts into its own bins in shared memory
// (shared-memory atomics), then adds them to `bins` (global atomics).
gpuc.func @histogram(%data: !gpuc.ptr<i32, global>, %bins: !gpuc.ptr<i32, global>,
                     %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %nbins = arith.constant 256 : index
  %mask = arith.constant 255 : i32
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %local = gpuc.shared_alloc 256 : !gpuc.ptr<i32, shared>
  %t = gpuc.thread_id x
  %threads = gpuc.block_dim x
  scf.for %i = %t to %nbins step %threads {
    gpuc.store %zero, %local[%i] : !gpuc.ptr<i32, shared>
  }
  gpuc.barrier
  %first = gpuc.global_id x
  %blocks = gpuc.grid_dim x
  %stride = arith.muli %threads, %blocks : index
  %count = arith.index_cast %n : i32 to index
  scf.for %i = %first to %count step %stride {
    %v = gpuc.load %data[%i] : !gpuc.ptr<i32, global>
    %bin = arith.andi %v, %mask : i32
    %slot = arith.index_cast %bin : i32 to index
    %old = gpuc.atomic_rmw add %local[%slot], %one : !gpuc.ptr<i32, shared>
  }
  gpuc.barrier
  scf.for %i = %t to %nbins step %threads {
    %mine = gpuc.load %local[%i] : !gpuc.ptr<i32, shared>
    %any = arith.cmpi ne, %mine, %zero : i32
    scf.if %any {
      %old = gpuc.atomic_rmw add %bins[%i], %mine : !gpuc.ptr<i32, global>
    }
  }
  gpuc.return
}
