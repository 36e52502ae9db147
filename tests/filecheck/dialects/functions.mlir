// Round trip of gpuc.func, gpuc.return, gpuc.call, gpuc.func_addr,
// gpuc.call_indirect and gpuc.launch: custom form -> custom form, and
// generic form -> custom form, print the same text.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @kernel(%a: f32, %x: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    gpuc.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "gpuc.func"() <{sym_name = "kernel", function_type = (f32, !gpuc.ptr<f32, global>) -> (), role = #gpuc<role kernel>}> ({
gpuc.func @kernel(%a: f32, %x: !gpuc.ptr<f32, global>) kernel {
  gpuc.return
}

// CHECK-LABEL: gpuc.func private @helper(%a: f32, %b: i32) -> f32 helper always_inline {
// CHECK-NEXT:    gpuc.return %a : f32
// CHECK-NEXT:  }
// GENERIC-LABEL: "gpuc.func"() <{sym_name = "helper", function_type = (f32, i32) -> f32, sym_visibility = "private", role = #gpuc<role helper>, inline = #gpuc<inline always_inline>}> ({
gpuc.func private @helper(%a: f32, %b: i32) -> f32 helper always_inline {
  gpuc.return %a : f32
}

// A public helper, a nested one, and a no_inline one with several results.
// CHECK-LABEL: gpuc.func @public_helper() helper {
gpuc.func @public_helper() helper {
  gpuc.return
}
// CHECK-LABEL: gpuc.func nested @nested_helper() helper {
gpuc.func nested @nested_helper() helper {
  gpuc.return
}
// CHECK-LABEL: gpuc.func private @pair(%a: f32, %b: i32) -> (f32, i32) helper no_inline {
// CHECK-NEXT:    gpuc.return %a, %b : f32, i32
gpuc.func private @pair(%a: f32, %b: i32) -> (f32, i32) helper no_inline {
  gpuc.return %a, %b : f32, i32
}

// Declarations: no body, unnamed parameters; extra attributes after `attributes`.
// CHECK-LABEL: gpuc.func private @declared(f32, !gpuc.ptr<i8, generic>) -> f32 helper
// CHECK-NOT:   {
gpuc.func private @declared(f32, !gpuc.ptr<i8, generic>) -> f32 helper
// CHECK-LABEL: gpuc.func private @no_params() helper attributes {llvm.name = "__nv_nothing"}
gpuc.func private @no_params() helper attributes {llvm.name = "__nv_nothing"}
// CHECK-LABEL: gpuc.func private @external_kernel(i32) kernel
gpuc.func private @external_kernel(i32) kernel

// CHECK-LABEL: gpuc.func @calls(%a: f32, %b: i32, %g: !gpuc.ptr<i8, generic>) kernel attributes {gpuc.uses_barrier} {
// CHECK-NEXT:    %r = gpuc.call @helper(%a, %b) : (f32, i32) -> f32
// CHECK-NEXT:    %p, %q = gpuc.call @pair(%r, %b) : (f32, i32) -> (f32, i32)
// CHECK-NEXT:    gpuc.call @public_helper() : () -> ()
// CHECK-NEXT:    %d = gpuc.call @declared(%a, %g) {note = "tagged"} : (f32, !gpuc.ptr<i8, generic>) -> f32
// GENERIC:       "gpuc.call"(%a, %b) <{callee = @helper}> : (f32, i32) -> f32
gpuc.func @calls(%a: f32, %b: i32, %g: !gpuc.ptr<i8, generic>) kernel attributes {gpuc.uses_barrier} {
  %r = gpuc.call @helper(%a, %b) : (f32, i32) -> f32
  %p, %q = gpuc.call @pair(%r, %b) : (f32, i32) -> (f32, i32)
  gpuc.call @public_helper() : () -> ()
  %d = gpuc.call @declared(%a, %g) {note = "tagged"} : (f32, !gpuc.ptr<i8, generic>) -> f32
  gpuc.return
}

// CHECK-LABEL: gpuc.func @indirect(%a: f32, %b: i32) kernel {
// CHECK-NEXT:    %fp = gpuc.func_addr @helper : !gpuc.funcptr<(f32, i32) -> f32>
// CHECK-NEXT:    %r = gpuc.call_indirect %fp(%a, %b) : !gpuc.funcptr<(f32, i32) -> f32>
// CHECK-NEXT:    %kp = gpuc.func_addr @kernel : !gpuc.funcptr<(f32, !gpuc.ptr<f32, global>) -> ()>
// CHECK-NEXT:    %np = gpuc.func_addr @public_helper {tag} : !gpuc.funcptr<() -> ()>
// CHECK-NEXT:    gpuc.call_indirect %np() {tag} : !gpuc.funcptr<() -> ()>
// GENERIC:       "gpuc.func_addr"() <{callee = @helper}> : () -> !gpuc.funcptr<(f32, i32) -> f32>
// GENERIC:       "gpuc.call_indirect"(%fp, %a, %b) : (!gpuc.funcptr<(f32, i32) -> f32>, f32, i32) -> f32
gpuc.func @indirect(%a: f32, %b: i32) kernel {
  %fp = gpuc.func_addr @helper : !gpuc.funcptr<(f32, i32) -> f32>
  %r = gpuc.call_indirect %fp(%a, %b) : !gpuc.funcptr<(f32, i32) -> f32>
  %kp = gpuc.func_addr @kernel : !gpuc.funcptr<(f32, !gpuc.ptr<f32, global>) -> ()>
  %np = gpuc.func_addr @public_helper {tag} : !gpuc.funcptr<() -> ()>
  gpuc.call_indirect %np() {tag} : !gpuc.funcptr<() -> ()>
  gpuc.return
}

// One to three grid and block sizes, optional dynamic shared bytes.
// CHECK-LABEL: gpuc.func @launches(%g: index, %x: !gpuc.ptr<f32, global>, %a: f32) kernel {
// CHECK-NEXT:    gpuc.launch @kernel grid(%g) block(%g) (%a, %x) : (f32, !gpuc.ptr<f32, global>)
// CHECK-NEXT:    gpuc.launch @kernel grid(%g, %g) block(%g, %g, %g) shared(%g) (%a, %x) : (f32, !gpuc.ptr<f32, global>)
// CHECK-NEXT:    gpuc.launch @no_args grid(%g, %g, %g) block(%g) () {tag} : ()
// GENERIC:       "gpuc.launch"(%g, %g, %g, %g, %g, %g, %a, %x) <{kernel = @kernel, operandSegmentSizes = array<i32: 2, 3, 1, 2>}> : (index, index, index, index, index, index, f32, !gpuc.ptr<f32, global>) -> ()
gpuc.func @launches(%g: index, %x: !gpuc.ptr<f32, global>, %a: f32) kernel {
  gpuc.launch @kernel grid(%g) block(%g) (%a, %x) : (f32, !gpuc.ptr<f32, global>)
  gpuc.launch @kernel grid(%g, %g) block(%g, %g, %g) shared(%g) (%a, %x) : (f32, !gpuc.ptr<f32, global>)
  gpuc.launch @no_args grid(%g, %g, %g) block(%g) () {tag} : ()
  gpuc.return
}
gpuc.func @no_args() kernel {
  gpuc.return
}

// Calls resolve in the nearest symbol table: @inner::@h shadows nothing outside.
// CHECK-LABEL: builtin.module @inner {
// CHECK-NEXT:    gpuc.func private @h(%a: i32) -> i32 helper {
// CHECK:         gpuc.func @user(%a: i32) kernel {
// CHECK-NEXT:      %r = gpuc.call @h(%a) : (i32) -> i32
builtin.module @inner {
  gpuc.func private @h(%a: i32) -> i32 helper {
    gpuc.return %a : i32
  }
  gpuc.func @user(%a: i32) kernel {
    %r = gpuc.call @h(%a) : (i32) -> i32
    gpuc.return
  }
}
