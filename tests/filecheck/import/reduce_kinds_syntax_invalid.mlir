// A reduction kind that no MLIR from 16 to 22 has (MLIR 17's arith names
// `maxf` and `minf` never were gpu kinds) is a parse error at the kind,
// naming the kinds there are; so is a kind printed as a number.
// RUN: gpuc-opt --split-input-file --parsing-diagnostics %s | filecheck %s

"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = (f32) -> ()}> ({
  ^bb0(%x: f32):
    // CHECK: reduce_kinds_syntax_invalid.mlir:[[# @LINE + 1]]:62: error: unknown gpu reduction kind 'maxf'; expected one of: add, mul, min, max, minsi, minui, maxsi, maxui, minnumf, maxnumf, minimumf, maximumf, and, or, xor
    %r = "gpu.subgroup_reduce"(%x) <{op = #gpu<all_reduce_op maxf>}> : (f32) -> f32
    "gpu.return"() : () -> ()
  }) {gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = (i32) -> ()}> ({
  ^bb0(%x: i32):
    // CHECK: reduce_kinds_syntax_invalid.mlir:[[# @LINE + 1]]:57: error: gpu reduction kind 3 is a number, which MLIR versions number differently; write the kind's keyword (add, minsi, ...)
    %r = "gpu.all_reduce"(%x) <{op = #gpu<all_reduce_op 3>}> ({
    }) : (i32) -> i32
    "gpu.return"() : () -> ()
  }) {gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()
