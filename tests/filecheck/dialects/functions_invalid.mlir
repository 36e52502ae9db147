// Every verifier error of gpuc.func, gpuc.return, gpuc.call, gpuc.func_addr,
// gpuc.call_indirect and gpuc.launch, reported at the failing op's line.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: functions_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op kernel @k returns (f32); kernels return nothing: write results through a pointer argument
gpuc.func @k(%a: f32) -> f32 kernel {
  gpuc.return %a : f32
}

// -----

// CHECK: functions_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op kernel @decl returns (f32, i32); kernels return nothing
gpuc.func private @decl(f32) -> (f32, i32) kernel

// -----

// CHECK: functions_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op declaration @d cannot be public; mark it private (a symbol without a body is defined elsewhere)
gpuc.func @d(f32) -> f32 helper

// -----

// CHECK: functions_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op @f has visibility 'hidden'; expected public, private or nested
"gpuc.func"() <{sym_name = "f", function_type = () -> (), sym_visibility = "hidden", role = #gpuc<role helper>}> ({
  "gpuc.return"() : () -> ()
}) : () -> ()

// -----

// CHECK: functions_invalid.mlir:[[# @LINE + 1]]:1: error: 'gpuc.func' op @f: entry block argument types (i32) differ from the parameter types (f32)
"gpuc.func"() <{sym_name = "f", function_type = (f32) -> (), role = #gpuc<role kernel>}> ({
^bb0(%a: i32):
  "gpuc.return"() : () -> ()
}) : () -> ()

// -----

gpuc.func private @h(%a: f32) -> f32 helper {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.return' op returns () but @h declares results (f32)
  gpuc.return
}

// -----

gpuc.func private @h(%a: f32, %b: i32) -> f32 helper {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.return' op returns (i32) but @h declares results (f32)
  gpuc.return %b : i32
}

// -----

func.func @f() {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.return' op expects parent op 'gpuc.func'
  gpuc.return
}

// -----

gpuc.func @k(%a: f32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call' op callee @nope does not exist in the enclosing symbol table; define or declare it (to materialize it as a job, use the deferred op)
  %r = gpuc.call @nope(%a) : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func private @h(%a: f32) -> f32 helper
gpuc.func @k(%a: i32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call' op call to @h: operand types (i32) differ from the callee's parameter types (f32)
  %r = gpuc.call @h(%a) : (i32) -> f32
  gpuc.return
}

// -----

gpuc.func private @h(%a: f32) -> f32 helper
gpuc.func @k(%a: f32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.call' op call to @h: result types () differ from the callee's result types (f32)
  gpuc.call @h(%a) : (f32) -> ()
  gpuc.return
}

// -----

gpuc.func @child() kernel {
  gpuc.return
}
gpuc.func @k() kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.call' op @child is a kernel and cannot be called; launch it with gpuc.launch
  gpuc.call @child() : () -> ()
  gpuc.return
}

// -----

func.func private @f(f32) -> f32
gpuc.func @k(%a: f32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call' op callee @f is a 'func.func', not a gpuc.func
  %r = gpuc.call @f(%a) : (f32) -> f32
  gpuc.return
}

// -----

// A symbol in an enclosing table is not visible through a nested one.
builtin.module @outer {
  gpuc.func private @h() helper
  builtin.module @inner {
    gpuc.func @k() kernel {
      // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:7: error: 'gpuc.call' op callee @h does not exist in the enclosing symbol table
      gpuc.call @h() : () -> ()
      gpuc.return
    }
  }
}

// -----

gpuc.func @k() kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:9: error: 'gpuc.func_addr' op function @missing does not exist in the enclosing symbol table
  %fp = gpuc.func_addr @missing : !gpuc.funcptr<() -> ()>
  gpuc.return
}

// -----

gpuc.func private @h(%a: f32) -> f32 helper {
  gpuc.return %a : f32
}
gpuc.func @k() kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:9: error: 'gpuc.func_addr' op result type !gpuc.funcptr<(i32) -> f32> does not match @h's type (f32) -> f32
  %fp = gpuc.func_addr @h : !gpuc.funcptr<(i32) -> f32>
  gpuc.return
}

// -----

gpuc.func @k(%fp: !gpuc.funcptr<(f32) -> f32>, %b: i32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call_indirect' op indirect call: operand types (i32) differ from the callee's parameter types (f32)
  %r = "gpuc.call_indirect"(%fp, %b) : (!gpuc.funcptr<(f32) -> f32>, i32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%fp: !gpuc.funcptr<(f32) -> f32>, %a: f32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call_indirect' op indirect call: result types (i32) differ from the callee's result types (f32)
  %r = "gpuc.call_indirect"(%fp, %a) : (!gpuc.funcptr<(f32) -> f32>, f32) -> i32
  gpuc.return
}

// -----

gpuc.func private @h() helper {
  gpuc.return
}
gpuc.func @k(%n: index) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op @h is a helper; only kernels can be launched (call helpers with gpuc.call)
  gpuc.launch @h grid(%n) block(%n) () : ()
  gpuc.return
}

// -----

gpuc.func @k(%n: index) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op kernel @child does not exist in the enclosing symbol table
  gpuc.launch @child grid(%n) block(%n) () : ()
  gpuc.return
}

// -----

gpuc.func @child(%x: !gpuc.ptr<f32, global>) kernel {
  gpuc.return
}
gpuc.func @k(%n: index, %a: f32) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op launch of @child: operand types (f32) differ from the callee's parameter types (!gpuc.ptr<f32, global>)
  gpuc.launch @child grid(%n) block(%n) (%a) : (f32)
  gpuc.return
}

// -----

gpuc.func @child() kernel {
  gpuc.return
}
gpuc.func @k(%n: index) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op grid takes 1 to 3 sizes (x, y, z), got 4
  "gpuc.launch"(%n, %n, %n, %n, %n) <{kernel = @child, operandSegmentSizes = array<i32: 4, 1, 0, 0>}> : (index, index, index, index, index) -> ()
  gpuc.return
}

// -----

gpuc.func @child() kernel {
  gpuc.return
}
gpuc.func @k(%n: index) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op block takes 1 to 3 sizes (x, y, z), got 0
  "gpuc.launch"(%n) <{kernel = @child, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (index) -> ()
  gpuc.return
}

// -----

gpuc.func @child() kernel {
  gpuc.return
}
gpuc.func @k(%n: index) kernel {
  // CHECK: functions_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.launch' op at most one dynamic shared-memory size
  "gpuc.launch"(%n, %n, %n, %n) <{kernel = @child, operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (index, index, index, index) -> ()
  gpuc.return
}

// -----

// CHECK: functions_invalid.mlir:[[# @LINE + 3]]:3: error: 'gpuc.func' op redefinition of symbol @f (first defined at {{.*}}functions_invalid.mlir:[[# @LINE + 2]]:3)
builtin.module {
  gpuc.func private @f() helper
  gpuc.func private @f() helper
}
