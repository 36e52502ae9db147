// `import{gpu-module=NAME}` compiles one gpu.module; naming one the module
// does not have is a diagnostic listing those it has.
// RUN: gpuc-opt -p 'import{gpu-module=b}' %s | filecheck %s
// RUN: gpuc-opt --verify-diagnostics -p 'import{gpu-module=c}' %s | filecheck %s --check-prefix=MISSING

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
// CHECK-NEXT:    gpuc.func @k() kernel attributes {gpuc.gpu_module = "b"} {
// CHECK-NEXT:      arith.constant 1 : i32
// CHECK-NOT:     gpuc.func

// MISSING: error: 'builtin.module' op has no gpu.module @c to compile; its gpu.modules: @a, @b
