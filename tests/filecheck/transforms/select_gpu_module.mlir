// select-gpu-module{module=NAME} keeps one gpu.module and erases the others;
// naming one the module does not have is a diagnostic listing those it has.
// The driver's gpu_module (--gpu-module) and import{gpu-module=NAME} are
// this pass in the import's list.
// RUN: gpuc-opt -p 'select-gpu-module{module=b}' %s | filecheck %s
// RUN: gpuc-opt --verify-diagnostics -p 'select-gpu-module{module=c}' %s | filecheck %s --check-prefix=MISSING

"gpu.module"() <{sym_name = "a"}> ({
  func.func @k() attributes {gpu.kernel} {
    func.return
  }
}) : () -> ()
"gpu.module"() <{sym_name = "b"}> ({
  func.func @k() attributes {gpu.kernel} {
    %c = arith.constant 1 : i32
    func.return
  }
}) : () -> ()

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    "gpu.module"() <{sym_name = "b"}> ({
// CHECK-NEXT:      func.func @k() attributes {gpu.kernel} {
// CHECK-NEXT:        %c = arith.constant 1 : i32
// CHECK-NOT:     sym_name = "a"

// MISSING: error: 'builtin.module' op has no gpu.module @c to compile; its gpu.modules: @a, @b
