// Function values with memref parameters: func.constant of two helpers, one
// chosen per thread by scf.if, called with func.call_indirect.
#view = strided<[?, ?], offset: ?>
func.func private @dot(%x: memref<?x?xf32, #view>, %row: index, %w: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c1 : memref<?x?xf32, #view>
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %x[%row, %k] : memref<?x?xf32, #view>
    %b = memref.load %w[%k] : memref<?xf32>
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    scf.yield %s : f32
  }
  func.return %sum : f32
}
func.func private @first(%x: memref<?x?xf32, #view>, %row: index, %w: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.load %x[%row, %c0] : memref<?x?xf32, #view>
  %b = memref.load %w[%c0] : memref<?xf32>
  %p = arith.mulf %a, %b : f32
  func.return %p : f32
}
func.func @k(%x: memref<?x?xf32, #view>, %w: memref<?xf32>, %out: memref<?xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %i = gpu.global_id x
  %rows = memref.dim %x, %c0 : memref<?x?xf32, #view>
  %in = arith.cmpi ult, %i, %rows : index
  scf.if %in {
    %parity = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    %f = scf.if %even -> ((memref<?x?xf32, #view>, index, memref<?xf32>) -> f32) {
      %d = func.constant @dot : (memref<?x?xf32, #view>, index, memref<?xf32>) -> f32
      scf.yield %d : (memref<?x?xf32, #view>, index, memref<?xf32>) -> f32
    } else {
      %g = func.constant @first : (memref<?x?xf32, #view>, index, memref<?xf32>) -> f32
      scf.yield %g : (memref<?x?xf32, #view>, index, memref<?xf32>) -> f32
    }
    %r = func.call_indirect %f(%x, %i, %w) : (memref<?x?xf32, #view>, index, memref<?xf32>) -> f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  func.return
}
