// The address of a function with memref parameters (gpuc.deferred_addr, as
// the Python frontend's gpuc.address emits it) and calls through it
// (gpuc.call_indirect): the import expands the !gpuc.funcptr signature as it
// expands the function's own (each memref a pointer to its first element,
// then its dynamic sizes, strides and offset), through scf.if results and a
// helper's function pointer parameter, and passes memrefs to an indirect call
// as to a direct one. Compiled for ptx (ptxas where installed).
// (MLIR's func.constant / func.call_indirect: func_constant.mlir.) A
// signature returning a memref, or holding a memref gpuc cannot pass, is
// refused at the op.
// RUN: gpuc-opt -p import --split-input-file %s | filecheck %s
// RUN: gpuc compile %s --target ptx --validate -o %t.ptx
// RUN: not gpuc-opt -p import --split-input-file %S/Inputs/invalid/function_pointers.mlir 2>&1 | filecheck %s --check-prefix=INVALID

// CHECK-LABEL: gpuc.func private @scale(%x: !gpuc.ptr<f32, global>, %x_dim0: index, %x_stride0: index, %x_offset: index, %n: index, %w: !gpuc.ptr<f32, global>, %w_dim0: index) -> f32 helper
func.func private @scale(%x: memref<?x4xf32, strided<[?, 1], offset: ?>>, %n: index, %w: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%n, %c0] : memref<?x4xf32, strided<[?, 1], offset: ?>>
  %u = memref.load %w[%n] : memref<?xf32>
  %r = arith.mulf %v, %u : f32
  func.return %r : f32
}

// CHECK-LABEL: gpuc.func @k(%x: !gpuc.ptr<f32, global>, %x_dim0: index, %x_stride0: index, %x_offset: index, %w: !gpuc.ptr<f32, global>, %w_dim0: index, %out: !gpuc.ptr<f32, global>, %out_dim0: index, %c: i1) kernel
// CHECK:      %a = gpuc.deferred_addr @scale #gpuc.job<helper, no_inline> : !gpuc.funcptr<(!gpuc.ptr<f32, global>, index, index, index, index, !gpuc.ptr<f32, global>, index) -> f32>
// CHECK-NEXT: %f = scf.if %c -> (!gpuc.funcptr<(!gpuc.ptr<f32, global>, index, index, index, index, !gpuc.ptr<f32, global>, index) -> f32>) {
// CHECK:      %r = gpuc.call_indirect %f(%x, %x_dim0, %x_stride0, %x_offset, %i, %w, %w_dim0) : !gpuc.funcptr<(!gpuc.ptr<f32, global>, index, index, index, index, !gpuc.ptr<f32, global>, index) -> f32>
func.func @k(%x: memref<?x4xf32, strided<[?, 1], offset: ?>>, %w: memref<?xf32>, %out: memref<?xf32>, %c: i1) attributes {gpu.kernel} {
  %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %a = gpuc.deferred_addr @scale #gpuc.job<helper, no_inline> : !gpuc.funcptr<(memref<?x4xf32, strided<[?, 1], offset: ?>>, index, memref<?xf32>) -> f32>
  %f = scf.if %c -> (!gpuc.funcptr<(memref<?x4xf32, strided<[?, 1], offset: ?>>, index, memref<?xf32>) -> f32>) {
    scf.yield %a : !gpuc.funcptr<(memref<?x4xf32, strided<[?, 1], offset: ?>>, index, memref<?xf32>) -> f32>
  } else {
    scf.yield %a : !gpuc.funcptr<(memref<?x4xf32, strided<[?, 1], offset: ?>>, index, memref<?xf32>) -> f32>
  }
  %r = gpuc.call_indirect %f(%x, %i, %w) : !gpuc.funcptr<(memref<?x4xf32, strided<[?, 1], offset: ?>>, index, memref<?xf32>) -> f32>
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}

// -----

// A function pointer passed to a helper: its parameter's type is expanded too.
// CHECK-LABEL: gpuc.func private @apply(%f: !gpuc.funcptr<(!gpuc.ptr<f32, shared>, index) -> f32>, %s: !gpuc.ptr<f32, shared>) -> f32 helper
// CHECK-NEXT:    %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %r = gpuc.call_indirect %f(%s, %[[N]]) : !gpuc.funcptr<(!gpuc.ptr<f32, shared>, index) -> f32>
func.func private @first(%w: memref<?xf32, 3>) -> f32 {
  %c0 = arith.constant 0 : index
  %u = memref.load %w[%c0] : memref<?xf32, 3>
  func.return %u : f32
}
func.func private @apply(%f: !gpuc.funcptr<(memref<?xf32, 3>) -> f32>, %s: memref<8xf32, 3>) -> f32 {
  %d = "memref.cast"(%s) : (memref<8xf32, 3>) -> memref<?xf32, 3>
  %r = gpuc.call_indirect %f(%d) : !gpuc.funcptr<(memref<?xf32, 3>) -> f32>
  func.return %r : f32
}
// CHECK-LABEL: gpuc.func @k2
// CHECK:         %[[S:.*]] = gpuc.shared_alloc 8 : !gpuc.ptr<f32, shared>
// CHECK:         %a = gpuc.deferred_addr @first #gpuc.job<helper> : !gpuc.funcptr<(!gpuc.ptr<f32, shared>, index) -> f32>
// CHECK:         gpuc.call @apply(%a, %[[S]]) : (!gpuc.funcptr<(!gpuc.ptr<f32, shared>, index) -> f32>, !gpuc.ptr<f32, shared>) -> f32
func.func @k2(%out: memref<1xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %s = memref.alloca() : memref<8xf32, 3>
  %a = gpuc.deferred_addr @first #gpuc.job<helper> : !gpuc.funcptr<(memref<?xf32, 3>) -> f32>
  %r = func.call @apply(%a, %s) : (!gpuc.funcptr<(memref<?xf32, 3>) -> f32>, memref<8xf32, 3>) -> f32
  memref.store %r, %out[%c0] : memref<1xf32>
  func.return
}

// INVALID: error: 'gpuc.deferred_addr' op result in @k: function pointer type !gpuc.funcptr<(memref<?xf32>) -> memref<?xf32>> returns a memref; functions cannot return memrefs, write through a memref parameter instead
// INVALID: error: 'gpuc.deferred_addr' op result in @k: function pointer type !gpuc.funcptr<(memref<?xcomplex<f32>>) -> f32>: element type complex<f32> is not supported
// INVALID: error: 'func.constant' op result in @k: function value type (memref<?xf32>) -> memref<?xf32> returns a memref
