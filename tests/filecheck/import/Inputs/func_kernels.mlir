// Kernels as func.func with the gpu.kernel attribute, outside any gpu.module:
// a 2-D kernel with dynamic sizes, workgroup alloca, integer memory spaces.
func.func private @expf(f32) -> f32
func.func private @at(%m: memref<?x?xf32, 1>, %i: index, %j: index) -> f32 {
  %v = memref.load %m[%i, %j] : memref<?x?xf32, 1>
  %e = func.call @expf(%v) : (f32) -> f32
  return %e : f32
}
func.func @exp2d(%src: memref<?x?xf32, 1>, %dst: memref<?x?xf32, #gpu.address_space<global>>,
                 %hist: memref<16xi32, 1>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32, 1>
  %cols = memref.dim %src, %c1 : memref<?x?xf32, 1>
  %i = gpu.global_id y
  %j = gpu.global_id x
  %t = gpu.thread_id x
  %seen = memref.alloca() : memref<16xi32, 3>
  %ri = arith.cmpi ult, %i, %rows : index
  %cj = arith.cmpi ult, %j, %cols : index
  %in = arith.andi %ri, %cj : i1
  scf.if %in {
    %e = func.call @at(%src, %i, %j) : (memref<?x?xf32, 1>, index, index) -> f32
    memref.store %e, %dst[%i, %j] : memref<?x?xf32, #gpu.address_space<global>>
    %one = arith.constant 1 : i32
    %c15 = arith.constant 15 : index
    %bin = arith.andi %t, %c15 : index
    %o = memref.atomic_rmw addi %one, %seen[%bin] : (i32, memref<16xi32, 3>) -> i32
    %h = memref.atomic_rmw maxs %one, %hist[%bin] : (i32, memref<16xi32, 1>) -> i32
  }
  return
}
