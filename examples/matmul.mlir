// matmul: c = a * b for row-major f32 matrices a (m x k), b (k x n), c (m x n),
// in 16 x 16 tiles staged through shared memory.
// Launch: matmul(a: f32*, b: f32*, c: f32*, m: i32, n: i32, k: i32) with
// block = (16, 16) (exactly) and grid = (ceil(n / 16), ceil(m / 16)); x is the
// column of c. Any m, n, k: tiles are padded with zeros at the edges.
gpuc.func @matmul(%a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>,
                  %c: !gpuc.ptr<f32, global>, %m: i32, %n: i32, %k: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tile = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %a_tile = gpuc.shared_alloc 256 align 16 : !gpuc.ptr<f32, shared>
  %b_tile = gpuc.shared_alloc 256 align 16 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %col = gpuc.global_id x
  %row = gpuc.global_id y
  %rows = arith.index_cast %m : i32 to index
  %cols = arith.index_cast %n : i32 to index
  %depth = arith.index_cast %k : i32 to index
  %row_in = arith.cmpi ult, %row, %rows : index
  %col_in = arith.cmpi ult, %col, %cols : index
  %slot_row = arith.muli %ty, %tile : index
  %slot = arith.addi %slot_row, %tx : index
  %tiles = arith.ceildivui %depth, %tile : index
  %acc = scf.for %t = %c0 to %tiles step %c1 iter_args(%sum = %zero) -> (f32) {
    %base = arith.muli %t, %tile : index
    %a_col = arith.addi %base, %tx : index
    %a_col_in = arith.cmpi ult, %a_col, %depth : index
    %a_in = arith.andi %row_in, %a_col_in : i1
    %a_value = scf.if %a_in -> (f32) {
      %a_row = arith.muli %row, %depth : index
      %a_index = arith.addi %a_row, %a_col : index
      %v = gpuc.load %a[%a_index] : !gpuc.ptr<f32, global>
      scf.yield %v : f32
    } else {
      scf.yield %zero : f32
    }
    gpuc.store %a_value, %a_tile[%slot] : !gpuc.ptr<f32, shared>
    %b_row = arith.addi %base, %ty : index
    %b_row_in = arith.cmpi ult, %b_row, %depth : index
    %b_in = arith.andi %b_row_in, %col_in : i1
    %b_value = scf.if %b_in -> (f32) {
      %b_start = arith.muli %b_row, %cols : index
      %b_index = arith.addi %b_start, %col : index
      %v = gpuc.load %b[%b_index] : !gpuc.ptr<f32, global>
      scf.yield %v : f32
    } else {
      scf.yield %zero : f32
    }
    gpuc.store %b_value, %b_tile[%slot] : !gpuc.ptr<f32, shared>
    gpuc.barrier
    %partial = scf.for %j = %c0 to %tile step %c1 iter_args(%s = %sum) -> (f32) {
      %ai = arith.addi %slot_row, %j : index
      %bj_row = arith.muli %j, %tile : index
      %bj = arith.addi %bj_row, %tx : index
      %av = gpuc.load %a_tile[%ai] : !gpuc.ptr<f32, shared>
      %bv = gpuc.load %b_tile[%bj] : !gpuc.ptr<f32, shared>
      %p = arith.mulf %av, %bv : f32
      %s2 = arith.addf %s, %p : f32
      scf.yield %s2 : f32
    }
    gpuc.barrier
    scf.yield %partial : f32
  }
  %in_c = arith.andi %row_in, %col_in : i1
  scf.if %in_c {
    %c_row = arith.muli %row, %cols : index
    %c_index = arith.addi %c_row, %col : index
    gpuc.store %acc, %c[%c_index] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
