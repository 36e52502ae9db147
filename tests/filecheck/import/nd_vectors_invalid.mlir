// What the import cannot unroll of vectors of several dimensions: each op
// gets a located diagnostic naming what is supported instead.
// RUN: not gpuc-opt --split-input-file -p import %s 2>&1 | filecheck %s

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %mask = arith.cmpf olt, %v, %v : vector<4x4xf32>
  %m = vector.transfer_read %a[%c0, %c0], %pad, %mask : memref<4x4xf32>, vector<4x4xf32>
  return
}

// CHECK: nd_vectors_invalid.mlir:10:8: error: 'vector.transfer_read' op has a mask in @k, which gpuc does not support; use in_bounds = false for a transfer that may run past the end

// -----

func.func @k(%a: memref<4x4xf32>, %i: index) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %e = vector.extract %v[%i] : vector<4xf32> from vector<4x4xf32>
  return
}

// CHECK: nd_vectors_invalid.mlir:22:8: error: 'vector.extract' op has a dynamic position in a vector of several dimensions in @k; gpuc takes static positions there

// -----

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %r = vector.reduction <add>, %v : vector<4x4xf32> into f32
  return
}

// CHECK: nd_vectors_invalid.mlir:34:8: error: 'vector.reduction' op works on vector<4x4xf32> in @k; gpuc unrolls vectors of several dimensions through arith and math ops element by element, vector.fma, vector.transfer_read, vector.transfer_write, vector.load, vector.store, vector.contract, vector.from_elements, vector.extract, vector.insert, vector.broadcast, vector.shape_cast, vector.transpose, scf.for, scf.if, scf.yield (not through calls, functions' parameters or results, nor other ops)

// -----

func.func @k(%a: vector<4x8xf32>, %b: vector<8x4xf32>, %c: vector<4x4xf32>) {
  return
}

// CHECK: nd_vectors_invalid.mlir:42:1: error: 'func.func' op takes or returns vector<4x8xf32>; vectors of several dimensions are unrolled within a function, not passed between functions: pass a memref and vector.transfer_read it

// -----

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2 + d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %v, %v : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return
}

// CHECK: nd_vectors_invalid.mlir:54:8: error: 'vector.contract' op has indexing maps (d0, d1, d2) -> (d0, (d2 + d1)), (d0, d1, d2) -> (d2, d1), (d0, d1, d2) -> (d0, d1) in @k; gpuc takes maps whose results are iteration dimensions (as a matmul's)

// -----

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<xor>} %v, %v, %v : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return
}

// CHECK: nd_vectors_invalid.mlir:66:8: error: 'vector.contract' op has kind xor on f32 in @k; gpuc takes add, mul, minimumf, maximumf, minnumf, maxnumf

// -----

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %t = arith.truncf %v : vector<4x4xf32> to vector<4x4xf16>
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %v, %t : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf16>
  return
}

// CHECK: nd_vectors_invalid.mlir:79:8: error: 'vector.contract' op contracts f32 into f16 in @k; the operands' element type must be the accumulator's or a narrower one of the same kind

// -----

func.func @k(%a: memref<4x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<f32>
  return
}

// CHECK: nd_vectors_invalid.mlir:90:8: error: 'vector.transfer_read' op transfers vector<f32> in @k; gpuc's vectors have at least one dimension

// -----

func.func @k(%a: memref<4x4xf32>, %n: index) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %r:2 = scf.while (%i = %c0, %x = %v) : (index, vector<4x4xf32>) -> (index, vector<4x4xf32>) {
    %go = arith.cmpi ult, %i, %n : index
    scf.condition(%go) %i, %x : index, vector<4x4xf32>
  } do {
  ^bb0(%j: index, %y: vector<4x4xf32>):
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %y : index, vector<4x4xf32>
  }
  return
}

// CHECK: nd_vectors_invalid.mlir:103:10: error: 'scf.while' op works on vector<4x4xf32> in @k; gpuc unrolls vectors of several dimensions through

// -----

func.func @k(%a: memref<4x4xf32>, %b: memref<2x4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x4xf32>, vector<4x4xf32>
  %w = vector.transfer_read %b[%c0, %c0], %pad : memref<2x4xf32>, vector<2x4xf32>
  %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %w, %v : vector<4x4xf32>, vector<2x4xf32> into vector<4x4xf32>
  return
}

// CHECK: nd_vectors_invalid.mlir:[[# @LINE - 4]]:8: error: 'vector.contract' op gives iteration dimension d2 two sizes in @k
