// Kernels for tests/test_matrix.py: each block is one subgroup computing one
// 16x16 tile of D = A * B + C (block x: the tile row, block y: its column),
// accumulating over K in steps of 16 with the C fragment carried by scf.for.

// A (M x K), B (K x N), C and D (M x N), row-major with leading dimensions.
gpuc.func @gemm_nn(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>, %k: index, %lda: index, %ldb: index, %ldc: index) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ti = gpuc.block_id x
  %tj = gpuc.block_id y
  %row = arith.muli %ti, %c16 : index
  %col = arith.muli %tj, %c16 : index
  %crow = arith.muli %row, %ldc : index
  %ci = arith.addi %crow, %col : index
  %acc0 = gpuc.matrix_load %c[%ci], %ldc : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %acc = scf.for %kk = %c0 to %k step %c16 iter_args(%acc_i = %acc0) -> (!gpuc.fragment<16x16xf32, c>) {
    %arow = arith.muli %row, %lda : index
    %ai = arith.addi %arow, %kk : index
    %at = gpuc.matrix_load %a[%ai], %lda : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
    %brow = arith.muli %kk, %ldb : index
    %bi = arith.addi %brow, %col : index
    %bt = gpuc.matrix_load %b[%bi], %ldb : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
    %next = gpuc.matrix_mma %at, %bt, %acc_i : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
    scf.yield %next : !gpuc.fragment<16x16xf32, c>
  }
  gpuc.matrix_store %acc, %d[%ci], %ldc : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

// Every matrix stored transposed: A as K x M, B as N x K, C and D as N x M.
gpuc.func @gemm_tt(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>, %k: index, %lda: index, %ldb: index, %ldc: index) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ti = gpuc.block_id x
  %tj = gpuc.block_id y
  %row = arith.muli %ti, %c16 : index
  %col = arith.muli %tj, %c16 : index
  %ccol = arith.muli %col, %ldc : index
  %ci = arith.addi %ccol, %row : index
  %acc0 = gpuc.matrix_load %c[%ci], %ldc transpose : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %acc = scf.for %kk = %c0 to %k step %c16 iter_args(%acc_i = %acc0) -> (!gpuc.fragment<16x16xf32, c>) {
    %acol = arith.muli %kk, %lda : index
    %ai = arith.addi %acol, %row : index
    %at = gpuc.matrix_load %a[%ai], %lda transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
    %bcol = arith.muli %col, %ldb : index
    %bi = arith.addi %bcol, %kk : index
    %bt = gpuc.matrix_load %b[%bi], %ldb transpose : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
    %next = gpuc.matrix_mma %at, %bt, %acc_i a_transpose b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
    scf.yield %next : !gpuc.fragment<16x16xf32, c>
  }
  gpuc.matrix_store %acc, %d[%ci], %ldc transpose : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}

// An f16 accumulator, C starting from a splat of %init.
gpuc.func @gemm_half(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, global>, %d: !gpuc.ptr<f16, global>, %init: f16, %k: index, %lda: index, %ldb: index, %ldc: index) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ti = gpuc.block_id x
  %tj = gpuc.block_id y
  %row = arith.muli %ti, %c16 : index
  %col = arith.muli %tj, %c16 : index
  %crow = arith.muli %row, %ldc : index
  %ci = arith.addi %crow, %col : index
  %acc0 = gpuc.matrix_splat %init : f16 -> !gpuc.fragment<16x16xf16, c>
  %acc = scf.for %kk = %c0 to %k step %c16 iter_args(%acc_i = %acc0) -> (!gpuc.fragment<16x16xf16, c>) {
    %arow = arith.muli %row, %lda : index
    %ai = arith.addi %arow, %kk : index
    %at = gpuc.matrix_load %a[%ai], %lda : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, a>
    %brow = arith.muli %kk, %ldb : index
    %bi = arith.addi %brow, %col : index
    %bt = gpuc.matrix_load %b[%bi], %ldb : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
    %next = gpuc.matrix_mma %at, %bt, %acc_i : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf16, c>
    scf.yield %next : !gpuc.fragment<16x16xf16, c>
  }
  gpuc.matrix_store %acc, %d[%ci], %ldc : !gpuc.fragment<16x16xf16, c>, !gpuc.ptr<f16, global>
  gpuc.return
}

// Every elementwise kind on 16x16 tiles of x, y (f32) and h (f16), ld 16:
// out = -min(max((x * alpha + extf(h) - y) / alpha, x), y); out16 = h + h.
gpuc.func @epilogue(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %h: !gpuc.ptr<f16, global>, %alpha: f32, %out: !gpuc.ptr<f32, global>, %out16: !gpuc.ptr<f16, global>) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xf = gpuc.matrix_load %x[%c0], %c16 : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %yf = gpuc.matrix_load %y[%c0], %c16 : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %hf = gpuc.matrix_load %h[%c0], %c16 : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, c>
  %s = gpuc.matrix_splat %alpha : f32 -> !gpuc.fragment<16x16xf32, c>
  %e = gpuc.matrix_elementwise extf %hf : !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf32, c>
  %t1 = gpuc.matrix_elementwise mulf %xf, %s : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t2 = gpuc.matrix_elementwise addf %t1, %e : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t3 = gpuc.matrix_elementwise subf %t2, %yf : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t4 = gpuc.matrix_elementwise divf %t3, %s : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t5 = gpuc.matrix_elementwise maxf %t4, %xf : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t6 = gpuc.matrix_elementwise minf %t5, %yf : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  %t7 = gpuc.matrix_elementwise negatef %t6 : !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %t7, %out[%c0], %c16 : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  %hh = gpuc.matrix_elementwise addf %hf, %hf : !gpuc.fragment<16x16xf16, c>, !gpuc.fragment<16x16xf16, c> -> !gpuc.fragment<16x16xf16, c>
  gpuc.matrix_store %hh, %out16[%c0], %c16 : !gpuc.fragment<16x16xf16, c>, !gpuc.ptr<f16, global>
  gpuc.return
}

// A staged through shared memory (each thread copies elements, a barrier,
// the tile loaded from shared), the C fragment live across the barrier.
gpuc.func @staged(%a: !gpuc.ptr<f16, global>, %b: !gpuc.ptr<f16, global>, %c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %tile = gpuc.shared_alloc 256 : !gpuc.ptr<f16, shared>
  %acc = gpuc.matrix_load %c[%c0], %c16 : !gpuc.ptr<f32, global> -> !gpuc.fragment<16x16xf32, c>
  %t = gpuc.thread_id x
  %n = gpuc.block_dim x
  scf.for %i = %t to %c256 step %n {
    %v = gpuc.load %a[%i] : !gpuc.ptr<f16, global>
    gpuc.store %v, %tile[%i] : !gpuc.ptr<f16, shared>
  }
  gpuc.barrier
  %at = gpuc.matrix_load %tile[%c0], %c16 : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, a>
  %bt = gpuc.matrix_load %b[%c0], %c16 : !gpuc.ptr<f16, global> -> !gpuc.fragment<16x16xf16, b>
  %r = gpuc.matrix_mma %at, %bt, %acc : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
  gpuc.matrix_store %r, %d[%c0], %c16 : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
  gpuc.return
}
