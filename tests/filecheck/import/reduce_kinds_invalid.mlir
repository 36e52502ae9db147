// A reduction kind on a type it does not take is refused by the import,
// naming the kind (MLIR's verifier refuses them too, but generic text can
// carry them); a kind no MLIR from 16 to 22 has is a parse error naming the
// kinds there are (reduce_kinds_syntax_invalid.mlir).
// RUN: gpuc-opt --split-input-file --verify-diagnostics -p import %s | filecheck %s

"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = (f32) -> ()}> ({
  ^bb0(%x: f32):
    // CHECK: reduce_kinds_invalid.mlir:[[# @LINE + 1]]:10: error: 'gpu.subgroup_reduce' op reduces f32 with 'maxsi' in @k, which needs integers
    %r = "gpu.subgroup_reduce"(%x) <{op = #gpu<all_reduce_op maxsi>}> : (f32) -> f32
    "gpu.return"() : () -> ()
  }) {gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = (i32) -> ()}> ({
  ^bb0(%x: i32):
    // CHECK: reduce_kinds_invalid.mlir:[[# @LINE + 1]]:10: error: 'gpu.all_reduce' op reduces i32 with 'minimumf' in @k, which needs floats
    %r = "gpu.all_reduce"(%x) <{op = #gpu<all_reduce_op minimumf>}> ({
    }) : (i32) -> i32
    "gpu.return"() : () -> ()
  }) {gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = (f64) -> ()}> ({
  ^bb0(%x: f64):
    // CHECK: reduce_kinds_invalid.mlir:[[# @LINE + 1]]:10: error: 'gpu.all_reduce' op reduces f64 with 'xor' in @k, which needs integers
    %r = "gpu.all_reduce"(%x) <{op = #gpu<all_reduce_op xor>}> ({
    }) : (f64) -> f64
    "gpu.return"() : () -> ()
  }) {gpu.kernel, sym_name = "k"} : () -> ()
}) : () -> ()
