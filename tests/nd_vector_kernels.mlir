// The kernels of tests/test_nd_vectors.py, as an MLIR frontend writes them:
// vectors of several dimensions in device code, which each thread computes
// whole (MLIR's semantics without -convert-vector-to-gpu). Thread t of @tiles
// reads its 4x4 tiles of %a (16 x 13 at run time) from row 2t.
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#tile = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @tiles(%a: memref<?x?xf32>, %out: memref<80x4x4xf32>,
                   %w: memref<?x?xf32>, %wt: memref<?x?xf32>, %s: f32) attributes {gpu.kernel} {
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c10 = arith.constant 10 : index
    %pad = arith.constant -1.0 : f32
    %row = arith.muli %t, %c2 : index
    %o0 = arith.muli %t, %c10 : index
    // Partly past the end: columns 10..13 of 13, rows 2t..2t+3 of 16.
    %r0 = vector.transfer_read %a[%row, %c10], %pad {in_bounds = [false, false]} : memref<?x?xf32>, vector<4x4xf32>
    // Transposed: r1[p][q] = a[t + q][1 + p].
    %r1 = vector.transfer_read %a[%t, %c1], %pad {in_bounds = [true, true], permutation_map = #t2} : memref<?x?xf32>, vector<4x4xf32>
    %twice = arith.mulf %r1, %r1 : vector<4x4xf32>
    %diff = arith.subf %twice, %r0 : vector<4x4xf32>
    %neg = arith.negf %r1 : vector<4x4xf32>
    %less = arith.cmpf olt, %r0, %r1 : vector<4x4xf32>
    %sel = arith.select %less, %diff, %neg : vector<4x4xi1>, vector<4x4xf32>
    %r2 = arith.maximumf %sel, %neg : vector<4x4xf32>
    %r3 = vector.transpose %r0, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
    // A broadcast dimension: r4[p][q] = a[t][q].
    %r4 = vector.transfer_read %a[%t, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (0, d1)>} : memref<?x?xf32>, vector<4x4xf32>
    // A 1-D read of a row (minor identity), padded past column 13.
    %flat = vector.transfer_read %a[%t, %c0], %pad {in_bounds = [false]} : memref<?x?xf32>, vector<16xf32>
    %square = vector.shape_cast %flat : vector<16xf32> to vector<4x4xf32>
    %k = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [0.5, 0.25, -1.0, -2.0], [10.0, 20.0, 30.0, 40.0]]> : vector<4x4xf32>
    %r5 = arith.addf %square, %k : vector<4x4xf32>
    %line = vector.extract %r1[2] : vector<4xf32> from vector<4x4xf32>
    %in = vector.insert %line, %r0[0] : vector<4xf32> into vector<4x4xf32>
    %r6 = vector.insert %s, %in[3, 3] : f32 into vector<4x4xf32>
    %r7 = vector.broadcast %line : vector<4xf32> to vector<4x4xf32>
    %e = vector.extract %r1[1, 2] : f32 from vector<4x4xf32>
    %r8 = vector.broadcast %e : f32 to vector<4x4xf32>
    %wide = vector.shape_cast %r0 : vector<4x4xf32> to vector<2x8xf32>
    %back = vector.shape_cast %wide : vector<2x8xf32> to vector<4x4xf32>
    %ones = arith.constant dense<1.0> : vector<4x4xf32>
    %r9 = arith.addf %back, %ones : vector<4x4xf32>
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %o1 = arith.addi %o0, %c1 : index
    %o2 = arith.addi %o0, %c2 : index
    %o3 = arith.addi %o0, %c3 : index
    %o4 = arith.addi %o0, %c4 : index
    %o5 = arith.addi %o0, %c5 : index
    %o6 = arith.addi %o0, %c6 : index
    %o7 = arith.addi %o0, %c7 : index
    %o8 = arith.addi %o0, %c8 : index
    %o9 = arith.addi %o0, %c9 : index
    vector.transfer_write %r0, %out[%o0, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r1, %out[%o1, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r2, %out[%o2, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r3, %out[%o3, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r4, %out[%o4, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r5, %out[%o5, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r6, %out[%o6, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r7, %out[%o7, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r8, %out[%o8, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    vector.transfer_write %r9, %out[%o9, %c0, %c0] {in_bounds = [true, true], permutation_map = #tile} : vector<4x4xf32>, memref<80x4x4xf32>
    // Partly past the end of %w (16 x 13): only the elements inside are written.
    vector.transfer_write %r1, %w[%row, %c10] {in_bounds = [false, false]} : vector<4x4xf32>, memref<?x?xf32>
    // Transposed and partly past the end: wt[2t + q][10 + p] = r1[p][q].
    vector.transfer_write %r1, %wt[%row, %c10] {in_bounds = [false, false], permutation_map = #t2} : vector<4x4xf32>, memref<?x?xf32>
    return
  }

  // One thread: the same 16x16x16 product accumulated in f32 (from f16
  // operands) and in f16, and an 8x8 A times the transpose of an 8x8 B in f32.
  func.func @matmul(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>,
                    %h: memref<16x16xf16>, %af: memref<8x8xf32>, %bf: memref<8x8xf32>,
                    %d: memref<16x16xf32>, %dh: memref<16x16xf16>, %dt: memref<8x8xf32>) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %A = vector.transfer_read %a[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<16x16xf16>, vector<16x16xf16>
    %B = vector.transfer_read %b[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<16x16xf16>, vector<16x16xf16>
    %C = vector.transfer_read %c[%c0, %c0], %z {in_bounds = [true, true]} : memref<16x16xf32>, vector<16x16xf32>
    %H = vector.transfer_read %h[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<16x16xf16>, vector<16x16xf16>
    %D = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %A, %B, %C : vector<16x16xf16>, vector<16x16xf16> into vector<16x16xf32>
    %DH = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %A, %B, %H : vector<16x16xf16>, vector<16x16xf16> into vector<16x16xf16>
    %AF = vector.transfer_read %af[%c0, %c0], %z {in_bounds = [true, true]} : memref<8x8xf32>, vector<8x8xf32>
    %BF = vector.transfer_read %bf[%c0, %c0], %z {in_bounds = [true, true]} : memref<8x8xf32>, vector<8x8xf32>
    %CT = vector.transfer_read %c[%c0, %c0], %z {in_bounds = [true, true]} : memref<16x16xf32>, vector<8x8xf32>
    %DT = vector.contract {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %AF, %BF, %CT : vector<8x8xf32>, vector<8x8xf32> into vector<8x8xf32>
    vector.transfer_write %D, %d[%c0, %c0] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x16xf32>
    vector.transfer_write %DH, %dh[%c0, %c0] {in_bounds = [true, true]} : vector<16x16xf16>, memref<16x16xf16>
    vector.transfer_write %DT, %dt[%c0, %c0] {in_bounds = [true, true]} : vector<8x8xf32>, memref<8x8xf32>
    return
  }

  // One thread: contractions of other shapes and kinds (a 4x8 by 8x3
  // product with kind maximumf, a matrix-vector product, a dot product into
  // a scalar, an integer product).
  func.func @shapes(%a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>,
                    %x: memref<8xf32>, %ia: memref<4x8xi32>, %ib: memref<8x3xi32>,
                    %max: memref<4x3xf32>, %mv: memref<4xf32>, %dot: memref<1xf32>,
                    %imm: memref<4x3xi32>) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %A = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
    %B = vector.transfer_read %b[%c0, %c0], %z {in_bounds = [true, true]} : memref<8x3xf32>, vector<8x3xf32>
    %C = vector.transfer_read %c[%c0, %c0], %z {in_bounds = [true, true]} : memref<4x3xf32>, vector<4x3xf32>
    %X = vector.transfer_read %x[%c0], %z {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
    %M = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<maximumf>} %A, %B, %C : vector<4x8xf32>, vector<8x3xf32> into vector<4x3xf32>
    %zero4 = arith.constant dense<0.0> : vector<4xf32>
    %MV = vector.contract {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %A, %X, %zero4 : vector<4x8xf32>, vector<8xf32> into vector<4xf32>
    %row = vector.extract %A[1] : vector<8xf32> from vector<4x8xf32>
    %DOT = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>} %row, %X, %z : vector<8xf32>, vector<8xf32> into f32
    %IA = vector.transfer_read %ia[%c0, %c0], %zi {in_bounds = [true, true]} : memref<4x8xi32>, vector<4x8xi32>
    %IB = vector.transfer_read %ib[%c0, %c0], %zi {in_bounds = [true, true]} : memref<8x3xi32>, vector<8x3xi32>
    %IC = arith.constant dense<7> : vector<4x3xi32>
    %IM = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %IA, %IB, %IC : vector<4x8xi32>, vector<8x3xi32> into vector<4x3xi32>
    vector.transfer_write %M, %max[%c0, %c0] {in_bounds = [true, true]} : vector<4x3xf32>, memref<4x3xf32>
    vector.transfer_write %MV, %mv[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
    memref.store %DOT, %dot[%c0] : memref<1xf32>
    vector.transfer_write %IM, %imm[%c0, %c0] {in_bounds = [true, true]} : vector<4x3xi32>, memref<4x3xi32>
    return
  }

  // Vector values live across a barrier: thread t keeps its 2x4 tile of %a
  // across the barrier and adds its neighbour's from workgroup memory.
  func.func @neighbours(%a: memref<16x4xf32>, %out: memref<16x4xf32>) attributes {gpu.kernel} {
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %n = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %shared = memref.alloca() : memref<16x4xf32, #gpu.address_space<workgroup>>
    %row = arith.muli %t, %c2 : index
    %v = vector.transfer_read %a[%row, %c0], %z {in_bounds = [true, true]} : memref<16x4xf32>, vector<2x4xf32>
    %v3 = arith.mulf %v, %v : vector<2x4xf32>
    vector.transfer_write %v, %shared[%row, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<16x4xf32, #gpu.address_space<workgroup>>
    "gpu.barrier"() : () -> ()
    %next = arith.addi %t, %c1 : index
    %wrap = arith.remui %next, %n : index
    %nrow = arith.muli %wrap, %c2 : index
    %w = vector.transfer_read %shared[%nrow, %c0], %z {in_bounds = [true, true]} : memref<16x4xf32, #gpu.address_space<workgroup>>, vector<2x4xf32>
    %sum = arith.addf %v3, %w : vector<2x4xf32>
    vector.transfer_write %sum, %out[%row, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<16x4xf32>
    return
  }

  // A tiled product carried through scf.for: each iteration the 4 threads
  // stage an 8x4 tile of %a and a 4x8 tile of %b in workgroup memory, then
  // thread t adds rows 2t and 2t + 1 of their product to its accumulator
  // (a vector<2x8xf32> iter_arg, live across the barriers); scf.if negates
  // the result where %neg is set.
  func.func @tiled(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>, %neg: i1) attributes {gpu.kernel} {
    %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %as = memref.alloca() : memref<8x4xf32, #gpu.address_space<workgroup>>
    %bs = memref.alloca() : memref<4x8xf32, #gpu.address_space<workgroup>>
    %row = arith.muli %t, %c2 : index
    %init = arith.constant dense<0.0> : vector<2x8xf32>
    %acc = scf.for %k = %c0 to %c16 step %c4 iter_args(%sum = %init) -> (vector<2x8xf32>) {
      %at = vector.transfer_read %a[%row, %k], %z {in_bounds = [true, true]} : memref<8x16xf32>, vector<2x4xf32>
      vector.transfer_write %at, %as[%row, %c0] {in_bounds = [true, true]} : vector<2x4xf32>, memref<8x4xf32, #gpu.address_space<workgroup>>
      %kt = arith.addi %k, %t : index
      %bt = vector.transfer_read %b[%kt, %c0], %z {in_bounds = [true]} : memref<16x8xf32>, vector<8xf32>
      vector.transfer_write %bt, %bs[%t, %c0] {in_bounds = [true]} : vector<8xf32>, memref<4x8xf32, #gpu.address_space<workgroup>>
      "gpu.barrier"() : () -> ()
      %A = vector.transfer_read %as[%row, %c0], %z {in_bounds = [true, true]} : memref<8x4xf32, #gpu.address_space<workgroup>>, vector<2x4xf32>
      %B = vector.transfer_read %bs[%c0, %c0], %z {in_bounds = [true, true]} : memref<4x8xf32, #gpu.address_space<workgroup>>, vector<4x8xf32>
      %D = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %A, %B, %sum : vector<2x4xf32>, vector<4x8xf32> into vector<2x8xf32>
      "gpu.barrier"() : () -> ()
      scf.yield %D : vector<2x8xf32>
    }
    %r = scf.if %neg -> (vector<2x8xf32>) {
      %n = arith.negf %acc : vector<2x8xf32>
      scf.yield %n : vector<2x8xf32>
    } else {
      scf.yield %acc : vector<2x8xf32>
    }
    vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, memref<8x8xf32>
    return
  }

  // Moves whose results only unrolled ops use are built once, where they
  // are defined, though first needed in a loop: out = (t + n t) * t with t
  // the transpose of %a seen as 4x4, through a vector<16xf32> both ways.
  func.func @moves_in_loop(%a: memref<16xf32>, %n: index) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %a[%c0], %z {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
    %m = vector.shape_cast %v : vector<16xf32> to vector<4x4xf32>
    %t = vector.transpose %m, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %t) -> (vector<4x4xf32>) {
      %u = arith.addf %s, %t : vector<4x4xf32>
      scf.yield %u : vector<4x4xf32>
    }
    %q = arith.mulf %r, %t : vector<4x4xf32>
    %w = vector.shape_cast %q : vector<4x4xf32> to vector<16xf32>
    vector.transfer_write %w, %a[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
    return
  }

  // Odd shapes: rows of 17 (a vector<16xf32> and an f32), of 5 (4 + 1) and
  // of 3 (2 + 1); a 3-D vector; reads and writes past the ends.
  func.func @odd(%a: memref<3x5xf32>, %b: memref<?x?xf32>, %c: memref<17x3xf32>,
                 %t: memref<2x3x4xf16>, %u: memref<4x2x3xf16>) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %h = arith.constant 0.0 : f16
    %one = arith.constant 1.5 : f32
    %A = vector.transfer_read %a[%c0, %c0], %z {in_bounds = [true, true]} : memref<3x5xf32>, vector<3x5xf32>
    // %b is 4 x 17 at run time: its fifth row reads the padding 1.5.
    %B = vector.transfer_read %b[%c0, %c0], %one {in_bounds = [false, true]} : memref<?x?xf32>, vector<5x17xf32>
    %zero = arith.constant dense<0.0> : vector<3x17xf32>
    %P = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %A, %B, %zero : vector<3x5xf32>, vector<5x17xf32> into vector<3x17xf32>
    %T = vector.transpose %P, [1, 0] : vector<3x17xf32> to vector<17x3xf32>
    vector.transfer_write %T, %c[%c0, %c0] {in_bounds = [true, true]} : vector<17x3xf32>, memref<17x3xf32>
    %V = vector.transfer_read %t[%c0, %c0, %c0], %h {in_bounds = [true, true, true]} : memref<2x3x4xf16>, vector<2x3x4xf16>
    %W = vector.transpose %V, [2, 0, 1] : vector<2x3x4xf16> to vector<4x2x3xf16>
    %X = arith.addf %W, %W : vector<4x2x3xf16>
    vector.transfer_write %X, %u[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<4x2x3xf16>, memref<4x2x3xf16>
    return
  }
}
