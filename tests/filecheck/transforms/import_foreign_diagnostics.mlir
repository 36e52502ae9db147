// RUN: gpuc-opt --split-input-file --verify-diagnostics -p import %s | filecheck %s

// Every construct the import cannot take is a diagnostic naming the op, its
// function and what is supported instead.

func.func @transposed(%m: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) {
  func.return
}

// CHECK: error: 'func.func' op @transposed has a parameter whose layout affine_map<(d0, d1) -> (d1, d0)> is not supported; the identity (row-major, offset 0) and strided<[...], offset: ...> layouts are

// -----

func.func @unranked(%m: memref<*xf32>) {
  func.return
}

// CHECK: error: 'func.func' op @unranked has a parameter whose unranked memref<*xf32> is not supported; give the memref a rank

// -----

func.func @space(%m: memref<4xf32, 2>) {
  func.return
}

// CHECK: error: 'func.func' op @space has a parameter whose memory space 2 : i64 is not supported; use none, #gpu.address_space<global|workgroup|private>, 0/1 (global), 3 (workgroup), 4 (constant), 5 (private), or one of gpuc's (#gpuc<space generic>, #gpuc<space shared>, ...)

// -----

func.func @element(%m: memref<4xcomplex<f32>>) {
  func.return
}

// CHECK: error: 'func.func' op @element has a parameter whose element type complex<f32> is not supported (integers, index and floats are)

// -----

func.func @tensor_param(%t: tensor<4xf32>) {
  func.return
}

// CHECK: error: 'func.func' op @tensor_param has a parameter whose tensor type tensor<4xf32> is not supported; bufferize to memrefs first

// -----

func.func @tensor_value() {
  %t = arith.constant dense<1.0> : tensor<4xf32>
  func.return
}

// CHECK: error: 'arith.constant' op result in @tensor_value: tensor type tensor<4xf32> is not supported; bufferize to memrefs first

// -----

func.func @returns(%m: memref<4xf32>) -> memref<4xf32> {
  func.return %m : memref<4xf32>
}

// CHECK: error: 'func.func' op @returns returns memref<4xf32>; functions cannot return memrefs, write through a memref parameter instead
// CHECK: error: 'func.return' op uses a memref value in @returns

// -----

func.func @unknown_gpu() attributes {gpu.kernel} {
  "gpu.wait"() : () -> ()
  func.return
}

// CHECK: error: 'gpu.wait' op cannot be imported in @unknown_gpu; the import accepts gpu.module, gpu.func, gpu.return, gpu.thread_id, gpu.block_id, gpu.block_dim, gpu.grid_dim, gpu.global_id, gpu.lane_id, gpu.barrier, gpu.shuffle, gpu.subgroup_reduce, gpu.subgroup_id, gpu.subgroup_size, gpu.num_subgroups, gpu.all_reduce, gpu.yield

// -----

func.func @unknown_memref(%a: memref<4xf32>, %b: memref<4xf32>) {
  "memref.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}

// CHECK-NOT: op uses a memref value
// CHECK: error: 'memref.copy' op cannot be imported in @unknown_memref; the import accepts memref.load, memref.store, memref.atomic_rmw, memref.generic_atomic_rmw, memref.atomic_yield, memref.dim, memref.cast, memref.alloca, memref.alloc, memref.dealloc, memref.global, memref.get_global, memref.assume_alignment

// -----

func.func @global_alloc() {
  %m = memref.alloc() : memref<4xf32, 1>
  func.return
}

// CHECK: error: 'memref.alloc' op allocates memref<4xf32, 1 : i64> in global memory in @global_alloc, which kernels cannot do; pass the buffer as a kernel argument

// -----

func.func @private_alloc() {
  %m = memref.alloc() : memref<4xf32>
  func.return
}

// A per-thread memref.alloca imports (a gpuc.private_alloc); memref.alloc does not.
// CHECK: error: 'memref.alloc' op allocates per-thread memory memref<4xf32> in @private_alloc with memref.alloc, which gpuc does not support; use memref.alloca (a stack array), allocate workgroup memory (memory space #gpu.address_space<workgroup> or 3) or use scalars

// -----

func.func @dynamic_private(%n: index) {
  %m = memref.alloca(%n) : memref<?xf32>
  func.return
}

// CHECK: error: 'memref.alloca' op allocates memref<?xf32> in @dynamic_private; per-thread memory needs a static size

// -----

func.func @dynamic_shared(%n: index) {
  %m = memref.alloca(%n) : memref<?xf32, 3>
  func.return
}

// CHECK: error: 'memref.alloca' op allocates memref<?xf32, 3 : i64> in @dynamic_shared; workgroup memory needs a static size

// -----

"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<1.0> : tensor<4xf32>}> : () -> ()

// CHECK: error: 'memref.global' op @table of type memref<4xf32> is not supported: the import takes workgroup globals (memory space #gpu.address_space<workgroup> or 3) and constant tables (`constant`, a dense initial value of at most 1024 integers or floats) only; pass other data as a kernel argument

// -----

// A constant table too large to copy into each thread's private memory.
"memref.global"() <{sym_name = "big", sym_visibility = "private", type = memref<2048xf32>, initial_value = dense<1.0> : tensor<2048xf32>, constant}> : () -> ()
func.func @k() attributes {gpu.kernel} {
  %t = memref.get_global @big : memref<2048xf32>
  func.return
}

// CHECK: error: 'memref.global' op @big of type memref<2048xf32> is not supported: the import takes workgroup globals {{.*}} and constant tables (`constant`, a dense initial value of at most 1024 integers or floats) only; pass other data as a kernel argument

// -----

"memref.global"() <{sym_name = "init", sym_visibility = "private", type = memref<4xf32, 3>, initial_value = dense<0.0> : tensor<4xf32>}> : () -> ()

// CHECK: error: 'memref.global' op @init: workgroup memory cannot have an initial value; make it uninitialized and fill it in the kernel

// -----

"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<4xf32, 3>, initial_value}> : () -> ()
func.func @helper() {
  %t = memref.get_global @tile : memref<4xf32, 3>
  func.return
}

// CHECK: error: 'memref.get_global' op uses workgroup global @tile in @helper, a helper; pass the buffer to the helper as a memref parameter (kernels only)

// -----

// A host-only module's constant table: taken as device code, which the
// diagnostic says, with what to do.
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<1.0> : tensor<4xf32>, constant}> : () -> ()
func.func @host() {
  %t = memref.get_global @table : memref<4xf32>
  func.return
}

// CHECK: error: 'memref.get_global' op uses global @table in @host, a helper; pass the buffer to the helper as a memref parameter (kernels only). The module has no kernel ({{.*}}), so all of it was taken as device code; if it is host code, run it with `gpuc run`

// -----

func.func @missing() attributes {gpu.kernel} {
  %t = memref.get_global @nowhere : memref<4xf32, 3>
  func.return
}

// CHECK: error: 'memref.get_global' op @nowhere in @missing names no memref.global of the module

// -----

func.func @dim(%m: memref<?xf32>, %d: index) {
  %n = memref.dim %m, %d : memref<?xf32>
  func.return
}

// CHECK: error: 'memref.dim' op needs a dimension in @dim that is an arith.constant in [0, 1)

// -----

func.func @mul(%m: memref<4xf32>, %v: f32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %m, %i) {kind = 9 : i64} : (f32, memref<4xf32>, index) -> f32
  func.return
}

// CHECK: error: 'memref.atomic_rmw' op has kind 9 in @mul, which is not supported; accepted (MLIR 16 numbering): addf (0), addi (1), assign (2), maxf (3), maxs (4), maxu (5), minf (6), mins (7), minu (8), ori (11), andi (12)

// -----

// MLIR's verifier rejects a float kind on integers and the reverse; xDSL's
// does not, and the import took addf on i32 as an integer add.
func.func @addf_on_integers(%m: memref<4xi32>, %v: i32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %m, %i) {kind = 0 : i64} : (i32, memref<4xi32>, index) -> i32
  func.return
}

// CHECK: error: 'memref.atomic_rmw' op has kind addf (0) in @addf_on_integers, which needs a float element type, not i32

// -----

func.func @maxs_on_floats(%m: memref<4xf32>, %v: f32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %m, %i) {kind = 4 : i64} : (f32, memref<4xf32>, index) -> f32
  func.return
}

// CHECK: error: 'memref.atomic_rmw' op has kind maxs (4) in @maxs_on_floats, which needs an integer element type, not f32

// -----

func.func @select(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1) {
  %m = arith.select %c, %a, %b : memref<4xf32>
  func.return
}

// CHECK:     error: 'arith.select' op uses a memref value in @select; memrefs may only be used by memref.load, memref.store, memref.atomic_rmw, memref.generic_atomic_rmw, memref.dim, memref.cast, memref.dealloc, memref.assume_alignment, memref.subview, memref.reinterpret_cast, memref.memory_space_cast, memref.expand_shape, memref.collapse_shape, vector.load, vector.store, vector.transfer_read, vector.transfer_write, func.call
// CHECK-NOT: error: 'arith.select' op uses
// CHECK:     error: 'arith.select' op produces a memref in @select; only function parameters, allocations, globals, memref.cast and the views (memref.subview, reinterpret_cast, memory_space_cast, expand_shape, collapse_shape) may

// -----

func.func @loop(%a: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %a) -> (memref<4xf32>) {
    scf.yield %m : memref<4xf32>
  }
  func.return
}

// CHECK: error: 'scf.for' op uses a memref value in @loop; memrefs may only be used by
// CHECK: error: 'scf.for' op produces a memref in @loop
// CHECK: error: 'scf.for' op has a memref block argument in @loop; memrefs cannot flow through control flow
// CHECK: error: 'scf.yield' op uses a memref value in @loop

// -----


// All problems of a module are reported in one run.

func.func @many(%t: tensor<4xf32>, %m: memref<4xf32, 7>) {
  func.return
}

// CHECK: error: 'func.func' op @many has a parameter whose tensor type
// CHECK: error: 'func.func' op @many has a parameter whose memory space 7 : i64 is not supported

// -----

// A kernel returns nothing; the imported gpuc.func says so when it verifies.

func.func @kernel_result() -> f32 attributes {gpu.kernel} {
  %c = arith.constant 1.0 : f32
  func.return %c : f32
}

// CHECK: error: 'gpuc.func' op kernel @kernel_result returns (f32); kernels return nothing: write results through a pointer argument

// -----

func.func @reinterpret_view(%a: memref<4xf32, strided<[2], offset: ?>>, %o: memref<4xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %r = memref.reinterpret_cast %a to offset: [0], sizes: [4], strides: [1] : memref<4xf32, strided<[2], offset: ?>> to memref<4xf32>
  %x = memref.load %r[%c0] : memref<4xf32>
  memref.store %x, %o[%c0] : memref<4xf32>
  func.return
}

// CHECK: error: 'memref.reinterpret_cast' op reinterprets kernel parameter of type memref<4xf32, strided<[2], offset: ?>> in @reinterpret_view, which starts from the buffer's base; a launch passes a strided parameter's view only (the elements it spans): take the whole buffer as the parameter, or memref.subview the parameter instead
