// Errors in the custom syntax of the gpuc dialect: each is a parse error at
// the offending token (--parsing-diagnostics prints it and goes on).
// RUN: gpuc-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:33: error: unknown address space 'foo'; expected one of: global, shared, local, constant, generic
gpuc.func @k(%p: !gpuc.ptr<f32, foo>) kernel {
  gpuc.return
}

// -----

// CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:33: error: unknown address space nothing; expected one of: global, shared, local, constant, generic
gpuc.func @k(%p: !gpuc.ptr<f32, 3>) kernel {
  gpuc.return
}

// -----

// CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:23: error: unknown function role 'device'; expected one of: kernel, helper
gpuc.func @k(%a: f32) device {
  gpuc.return
}

// -----

// CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:13: error: parameters must be all named (%a: T, a definition) or all unnamed (T, a declaration)
gpuc.func @k(%a: f32, i32) kernel {
  gpuc.return
}

// -----

// CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:21: error: a function with a body must name its parameters (%a: T)
gpuc.func private @h(f32) helper {
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:42: error: unknown job role 'device'; expected one of: kernel, helper
  %r = gpuc.deferred_call @s() #gpuc.job<device> : () -> f32
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:50: error: expected 'always_inline', 'no_inline' or 'generator = "name"' in #gpuc.job, found 'inline'
  %r = gpuc.deferred_call @s() #gpuc.job<helper, inline> : () -> f32
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:32: error: expected a #gpuc.job<...> configuration, got "helper"
  %r = gpuc.deferred_call @s() "helper" : () -> f32
  gpuc.return
}

// -----

gpuc.func @k(%a: f32) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:36: error: expected a !gpuc.funcptr type, got (f32) -> f32
  %r = gpuc.call_indirect %a(%a) : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%fp: !gpuc.funcptr<(f32) -> f32>, %a: f32) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:41: error: 2 arguments given but !gpuc.funcptr<(f32) -> f32> takes 1
  %r = gpuc.call_indirect %fp(%a, %a) : !gpuc.funcptr<(f32) -> f32>
  gpuc.return
}

// -----

gpuc.func @k(%n: index, %a: f32) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:44: error: 1 kernel arguments given but 2 types
  gpuc.launch @k grid(%n) block(%n) (%a) : (f32, f32)
  gpuc.return
}

// -----

gpuc.func @k(%p: f32) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:23: error: expected a !gpuc.ptr type, got f32
  %v = gpuc.load %p : f32
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:23: error: Expected '['
  %q = gpuc.offset %p : !gpuc.ptr<f32, global>
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<i32, global>, %v: i32) kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:24: error: Expected `add`, `min`, `max`, `umin`, `umax`, `exchange`, `and`, `or`, or `xor`.
  %o = gpuc.atomic_rmw nand %p, %v : !gpuc.ptr<i32, global>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:23: error: Expected `x`, `y`, or `z`.
  %t = gpuc.thread_id w
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:8: error: unknown operation 'gpuc.warp_id': dialect 'gpuc' has no such op
  %w = gpuc.warp_id
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:26: error: count 18446744073709551616 does not fit in 64 bits (signed)
  %s = gpuc.shared_alloc 18446744073709551616 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:34: error: alignment 9223372036854775808 does not fit in 64 bits (signed)
  %s = gpuc.shared_alloc 4 align 9223372036854775808 : !gpuc.ptr<f32, shared>
  gpuc.return
}

// -----

// An attribute the op's constraint rejects while parsing: the constraint's
// own message, at the op.
gpuc.func @k() kernel {
  // CHECK: syntax_invalid.mlir:[[# @LINE + 1]]:3: error: Expected SymbolRefAttr with no nested symbols. Underlying verification failure: expected empty array, but got ["h"]
  gpuc.call @m::@h() : () -> ()
  gpuc.return
}
