// RUN: gpuc-opt --split-input-file -p import %s | filecheck %s

// A func.func with the gpu.kernel unit attribute is a kernel, any other is a
// helper; MLIR visibility is kept.

func.func @k(%a: f32) attributes {gpu.kernel} {
  %r = func.call @h(%a) : (f32) -> f32
  func.return
}
func.func private @h(%a: f32) -> f32 {
  func.return %a : f32
}
func.func nested @n() {
  func.return
}

// CHECK-LABEL: gpuc.func @k(%a: f32) kernel {
// CHECK-NEXT:    %r = gpuc.call @h(%a) : (f32) -> f32
// CHECK-NEXT:    gpuc.return
// CHECK-NEXT:  }
// CHECK-NEXT:  gpuc.func private @h(%a: f32) -> f32 helper {
// CHECK-NEXT:    gpuc.return %a : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  gpuc.func nested @n() helper {

// -----

// Declarations stay declarations; a public one becomes private (gpuc.func,
// like MLIR, requires it: a declaration is defined elsewhere).

func.func @sinf(f32) -> f32
func.func private @cosf(f32) -> f32

// CHECK-LABEL: gpuc.func private @sinf(f32) -> f32 helper
// CHECK-NEXT:  gpuc.func private @cosf(f32) -> f32 helper

// -----

// The contents of a gpu.module are the compiled module; the host code around
// it is dropped. gpu.func is a kernel with xDSL's `kernel` property or MLIR's
// `gpu.kernel` attribute; other discardable attributes are kept.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (f32) -> (), kernel}> ({
    ^bb0(%a: f32):
      "gpu.return"() : () -> ()
    }) {sym_name = "k1", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
    "gpu.func"() <{function_type = () -> ()}> ({
      "gpu.return"() : () -> ()
    }) {sym_name = "k2", gpu.kernel} : () -> ()
    "gpu.func"() <{function_type = (f32) -> f32}> ({
    ^bb0(%a: f32):
      "gpu.return"(%a) : (f32) -> ()
    }) {sym_name = "device_fn"} : () -> ()
  }) : () -> ()
  func.func @host() {
    func.return
  }
}

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    gpuc.func @k1(%a: f32) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpuc.gpu_module = "kernels"} {
// CHECK-NEXT:      gpuc.return
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.func @k2() kernel attributes {gpuc.gpu_module = "kernels"} {
// CHECK-NEXT:      gpuc.return
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.func @device_fn(%a: f32) -> f32 helper {
// CHECK-NEXT:      gpuc.return %a : f32
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

// Several gpu.modules are compiled together, in order; each kernel records
// its gpu.module (`a::first` in the API).

"gpu.module"() <{sym_name = "a"}> ({
  func.func @first() attributes {gpu.kernel} {
    func.return
  }
}) : () -> ()
"gpu.module"() <{sym_name = "b"}> ({
  func.func @second() attributes {gpu.kernel} {
    func.return
  }
}) : () -> ()

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    gpuc.func @first() kernel attributes {gpuc.gpu_module = "a"} {
// CHECK:         gpuc.func @second() kernel attributes {gpuc.gpu_module = "b"} {

// -----

// Each gpu.module is its own namespace: a name two of them define becomes
// @"module::name" in each, and their uses in it follow; others keep theirs.

"gpu.module"() <{sym_name = "a"}> ({
  func.func @k(%x: f32) attributes {gpu.kernel} {
    %y = func.call @helper(%x) : (f32) -> f32
    func.return
  }
  func.func private @helper(%x: f32) -> f32 {
    func.return %x : f32
  }
  func.func @only_a() attributes {gpu.kernel} {
    func.return
  }
}) : () -> ()
"gpu.module"() <{sym_name = "b"}> ({
  func.func @k(%x: f32) attributes {gpu.kernel} {
    %y = func.call @helper(%x) : (f32) -> f32
    func.return
  }
  func.func private @helper(%x: f32) -> f32 {
    %z = arith.addf %x, %x : f32
    func.return %z : f32
  }
}) : () -> ()

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    gpuc.func @"a::k"(%x: f32) kernel attributes {gpuc.gpu_module = "a"} {
// CHECK-NEXT:      gpuc.call @"a::helper"(%x)
// CHECK:         gpuc.func private @"a::helper"(%x: f32) -> f32 helper {
// CHECK:         gpuc.func @only_a() kernel attributes {gpuc.gpu_module = "a"} {
// CHECK:         gpuc.func @"b::k"(%x: f32) kernel attributes {gpuc.gpu_module = "b"} {
// CHECK-NEXT:      gpuc.call @"b::helper"(%x)
// CHECK:         gpuc.func private @"b::helper"(%x: f32) -> f32 helper {
// CHECK-NEXT:      arith.addf

// -----

// Index and synchronization ops.

func.func @ids() attributes {gpu.kernel} {
  %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %1 = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %2 = "gpu.block_dim"() <{dimension = #gpu<dim z>}> : () -> index
  %3 = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %4 = "gpu.global_id"() <{dimension = #gpu<dim y>}> : () -> index
  %5 = "gpu.lane_id"() : () -> index
  "gpu.barrier"() : () -> ()
  func.return
}

// CHECK-LABEL: gpuc.func @ids() kernel {
// CHECK-NEXT:    %0 = gpuc.thread_id x
// CHECK-NEXT:    %1 = gpuc.block_id y
// CHECK-NEXT:    %2 = gpuc.block_dim z
// CHECK-NEXT:    %3 = gpuc.grid_dim x
// CHECK-NEXT:    %4 = gpuc.global_id y
// CHECK-NEXT:    %5 = gpuc.lane_id
// CHECK-NEXT:    gpuc.barrier
// CHECK-NEXT:    gpuc.return

// -----

// Static memrefs are bare pointers; loads and stores index them row-major.

func.func @static(%v: memref<8xf32>, %m: memref<4x8xf32>, %c: memref<2x3x4xi32>,
                  %s: memref<f32>, %i: index, %j: index, %k: index) attributes {gpu.kernel} {
  %a = memref.load %v[%i] : memref<8xf32>
  memref.store %a, %m[%i, %j] : memref<4x8xf32>
  %b = memref.load %c[%i, %j, %k] : memref<2x3x4xi32>
  %d = memref.load %s[] : memref<f32>
  func.return
}

// CHECK-LABEL: gpuc.func @static(%v: !gpuc.ptr<f32, global>, %m: !gpuc.ptr<f32, global>, %c: !gpuc.ptr<i32, global>, %s: !gpuc.ptr<f32, global>, %i: index, %j: index, %k: index) kernel attributes {gpuc.memref_params = [array<i64: 0, 8>, array<i64: 1, 4, 8>, array<i64: 2, 2, 3, 4>, array<i64: 3>]} {
// CHECK-NEXT:    %a = gpuc.load %v[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %i, %[[EIGHT]] : index
// CHECK-NEXT:    %[[IJ:.*]] = arith.addi %[[ROW]], %j : index
// CHECK-NEXT:    gpuc.store %a, %m[%[[IJ]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[I3:.*]] = arith.muli %i, %[[THREE]] : index
// CHECK-NEXT:    %[[I3J:.*]] = arith.addi %[[I3]], %j : index
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[I3J4:.*]] = arith.muli %[[I3J]], %[[FOUR]] : index
// CHECK-NEXT:    %[[IJK:.*]] = arith.addi %[[I3J4]], %k : index
// CHECK-NEXT:    %b = gpuc.load %c[%[[IJK]]] : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %d = gpuc.load %s : !gpuc.ptr<f32, global>

// -----

// Each dynamic size becomes an `index` parameter right after its pointer, in
// dimension order; memref.dim reads it (or the static size).

func.func @dynamic(%a: memref<?x?xf32>, %b: memref<4x?xf32>, %n: i32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf32>
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  %four = memref.dim %b, %c0 : memref<4x?xf32>
  %x = memref.load %a[%rows, %cols] : memref<?x?xf32>
  memref.store %x, %b[%four, %cols] : memref<4x?xf32>
  func.return
}

// CHECK-LABEL: gpuc.func @dynamic(%a: !gpuc.ptr<f32, global>, %a_dim0: index, %a_dim1: index, %b: !gpuc.ptr<f32, global>, %b_dim1: index, %n: i32) kernel attributes {gpuc.memref_params = [array<i64: 0, -1, -1>, array<i64: 3, 4, -1>]} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %four = arith.constant 4 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %a_dim0, %a_dim1 : index
// CHECK-NEXT:    %[[IDX:.*]] = arith.addi %[[ROW]], %a_dim1 : index
// CHECK-NEXT:    %x = gpuc.load %a[%[[IDX]]] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %[[ROW2:.*]] = arith.muli %four, %b_dim1 : index
// CHECK-NEXT:    %[[IDX2:.*]] = arith.addi %[[ROW2]], %a_dim1 : index
// CHECK-NEXT:    gpuc.store %x, %b[%[[IDX2]]] : !gpuc.ptr<f32, global>

// -----

// A call passes a memref as its pointer and dynamic sizes; a memref.cast to
// a dynamic shape passes the static size it came from.

func.func private @fill(%m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<?xf32>
  func.return
}
func.func @caller(%m: memref<16xf32>, %v: f32) attributes {gpu.kernel} {
  %d = "memref.cast"(%m) : (memref<16xf32>) -> memref<?xf32>
  func.call @fill(%d, %v) : (memref<?xf32>, f32) -> ()
  func.return
}

// CHECK-LABEL: gpuc.func private @fill(%m: !gpuc.ptr<f32, global>, %m_dim0: index, %v: f32) helper {
// CHECK:       gpuc.func @caller(%m: !gpuc.ptr<f32, global>, %v: f32) kernel attributes {gpuc.memref_params = [array<i64: 0, 16>]} {
// CHECK-NEXT:    %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:    gpuc.call @fill(%m, %[[SIXTEEN]], %v) : (!gpuc.ptr<f32, global>, index, f32) -> ()
// CHECK-NEXT:    gpuc.return

// -----

// Memory spaces: none, 0, 1 and #gpu.address_space<global> are global memory;
// 3 and workgroup are shared; 5 and private are local; 4 is constant.

func.func @spaces(%a: memref<4xf32>, %b: memref<4xf32, 0>, %c: memref<4xf32, 1>,
                  %d: memref<4xf32, #gpu.address_space<global>>,
                  %e: memref<4xf32, 3>, %f: memref<4xf32, #gpu.address_space<workgroup>>,
                  %g: memref<4xf32, 5>, %h: memref<4xf32, #gpu.address_space<private>>,
                  %i: memref<4xf32, 4>) {
  func.return
}

// CHECK-LABEL: gpuc.func @spaces(%a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>, %c: !gpuc.ptr<f32, global>, %d: !gpuc.ptr<f32, global>, %e: !gpuc.ptr<f32, shared>, %f: !gpuc.ptr<f32, shared>, %g: !gpuc.ptr<f32, local>, %h: !gpuc.ptr<f32, local>, %i: !gpuc.ptr<f32, constant>) helper {

// -----

// Identity layouts spelled out are accepted.

func.func @layouts(%a: memref<4x8xf32, strided<[8, 1]>>,
                   %b: memref<4x8xf32, affine_map<(d0, d1) -> (d0, d1)>>) {
  func.return
}

// CHECK-LABEL: gpuc.func @layouts(%a: !gpuc.ptr<f32, global>, %b: !gpuc.ptr<f32, global>) helper {

// -----

// Workgroup allocations become shared allocations; a workgroup memref.global
// read with memref.get_global is one allocation per kernel.

"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<2x64xf32, 3>, initial_value, alignment = 16 : i64}> : () -> ()
func.func @shared(%i: index) attributes {gpu.kernel} {
  %t = memref.get_global @tile : memref<2x64xf32, 3>
  %a = memref.alloca() {alignment = 8 : i64} : memref<32xi32, #gpu.address_space<workgroup>>
  %b = memref.alloc() : memref<4xf32, 3>
  %t2 = memref.get_global @tile : memref<2x64xf32, 3>
  %v = memref.load %t[%i, %i] : memref<2x64xf32, 3>
  memref.store %v, %t2[%i, %i] : memref<2x64xf32, 3>
  %w = memref.load %a[%i] : memref<32xi32, #gpu.address_space<workgroup>>
  memref.dealloc %b : memref<4xf32, 3>
  func.return
}

// CHECK-LABEL: builtin.module {
// CHECK-NOT:     memref.global
// CHECK-NEXT:    gpuc.func @shared(%i: index) kernel {
// CHECK-NEXT:      %[[TILE:.*]] = gpuc.shared_alloc 128 align 16 : !gpuc.ptr<f32, shared>
// CHECK-NEXT:      %[[A:.*]] = gpuc.shared_alloc 32 align 8 : !gpuc.ptr<i32, shared>
// CHECK-NEXT:      %{{.*}} = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>
// CHECK-NOT:       gpuc.shared_alloc
// CHECK:           %v = gpuc.load %[[TILE]][%{{.*}}] : !gpuc.ptr<f32, shared>
// CHECK:           gpuc.store %v, %[[TILE]][%{{.*}}] : !gpuc.ptr<f32, shared>
// CHECK-NEXT:      %w = gpuc.load %[[A]][%i] : !gpuc.ptr<i32, shared>
// CHECK-NEXT:      gpuc.return

// -----

// A constant table (what bufferization makes of a constant tensor) is a
// private array each kernel that reads it fills with its values on entry.

"memref.global"() <{sym_name = "weights", sym_visibility = "private", type = memref<2x2xf32>, initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "sevens", sym_visibility = "private", type = memref<2xi32>, initial_value = dense<7> : tensor<2xi32>, constant}> : () -> ()
func.func @table(%i: index, %j: index) attributes {gpu.kernel} {
  %w = memref.get_global @weights : memref<2x2xf32>
  %s = memref.get_global @sevens : memref<2xi32>
  %x = memref.load %w[%i, %j] : memref<2x2xf32>
  %y = memref.load %s[%j] : memref<2xi32>
  func.return
}

// CHECK-LABEL: builtin.module {
// CHECK-NOT:     memref.global
// CHECK-NEXT:    gpuc.func @table(%i: index, %j: index) kernel {
// CHECK-NEXT:      %[[S:.*]] = gpuc.private_alloc 2 {gpuc.same_in_every_thread} : !gpuc.ptr<i32, local>
// CHECK-NEXT:      %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK-NEXT:      %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      gpuc.store %[[SEVEN]], %[[S]][%[[K0]]] : !gpuc.ptr<i32, local>
// CHECK:           %[[W:.*]] = gpuc.private_alloc 4 {gpuc.same_in_every_thread} : !gpuc.ptr<f32, local>
// CHECK:           %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[K3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      gpuc.store %[[FOUR]], %[[W]][%[[K3]]] : !gpuc.ptr<f32, local>
// CHECK:           %x = gpuc.load %[[W]][%{{.*}}] : !gpuc.ptr<f32, local>
// CHECK-NEXT:      %y = gpuc.load %[[S]][%j] : !gpuc.ptr<i32, local>

// -----

// memref.atomic_rmw kinds (MLIR 16's numbers) become gpuc atomics, acq_rel as
// MLIR lowers them.

func.func @atomics(%f: memref<4xf32>, %n: memref<4xi32>, %v: f32, %w: i32, %i: index) {
  %0 = "memref.atomic_rmw"(%v, %f, %i) {kind = 0 : i64} : (f32, memref<4xf32>, index) -> f32
  %1 = "memref.atomic_rmw"(%w, %n, %i) {kind = 1 : i64} : (i32, memref<4xi32>, index) -> i32
  %2 = "memref.atomic_rmw"(%w, %n, %i) {kind = 2 : i64} : (i32, memref<4xi32>, index) -> i32
  %3 = "memref.atomic_rmw"(%v, %f, %i) {kind = 3 : i64} : (f32, memref<4xf32>, index) -> f32
  %4 = "memref.atomic_rmw"(%w, %n, %i) {kind = 4 : i64} : (i32, memref<4xi32>, index) -> i32
  %5 = "memref.atomic_rmw"(%w, %n, %i) {kind = 5 : i64} : (i32, memref<4xi32>, index) -> i32
  %6 = "memref.atomic_rmw"(%v, %f, %i) {kind = 6 : i64} : (f32, memref<4xf32>, index) -> f32
  %7 = "memref.atomic_rmw"(%w, %n, %i) {kind = 7 : i64} : (i32, memref<4xi32>, index) -> i32
  %8 = "memref.atomic_rmw"(%w, %n, %i) {kind = 8 : i64} : (i32, memref<4xi32>, index) -> i32
  %9 = "memref.atomic_rmw"(%w, %n, %i) {kind = 11 : i64} : (i32, memref<4xi32>, index) -> i32
  %10 = "memref.atomic_rmw"(%w, %n, %i) {kind = 12 : i64} : (i32, memref<4xi32>, index) -> i32
  func.return
}

// CHECK-LABEL: gpuc.func @atomics(
// CHECK-NEXT:    gpuc.atomic_rmw add %f[%i], %v acq_rel : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.atomic_rmw add %n[%i], %w acq_rel : !gpuc.ptr<i32, global>
// CHECK-NEXT:    gpuc.atomic_rmw exchange %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw max %f[%i], %v acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw max %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw umax %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw min %f[%i], %v acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw min %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw umin %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw or %n[%i], %w acq_rel
// CHECK-NEXT:    gpuc.atomic_rmw and %n[%i], %w acq_rel

// -----

// memref.assume_alignment is a hint gpuc drops.

func.func @hint(%m: memref<4xf32>, %i: index) {
  %a = "memref.assume_alignment"(%m) <{alignment = 16 : i32}> : (memref<4xf32>) -> memref<4xf32>
  %v = memref.load %a[%i] : memref<4xf32>
  func.return
}

// CHECK-LABEL: gpuc.func @hint(%m: !gpuc.ptr<f32, global>, %i: index) helper {
// CHECK-NEXT:    %v = gpuc.load %m[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.return

// -----

// gpuc input passes through unchanged, so the pipeline may always run import.

gpuc.func @already(%p: !gpuc.ptr<f32, global>) kernel {
  %t = gpuc.thread_id x
  %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
  gpuc.return
}

// CHECK-LABEL: gpuc.func @already(%p: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    %t = gpuc.thread_id x
// CHECK-NEXT:    %v = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.return
