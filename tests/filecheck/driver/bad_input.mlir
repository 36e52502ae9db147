// Bad input: a diagnostic on stderr with file:line:col, exit status 1, no
// traceback and nothing on stdout (`not` checks the status).
// RUN: not gpuc-opt %s 2>&1 | FileCheck %s --strict-whitespace
// RUN: not gpuc-opt %s 2>/dev/null | FileCheck %s --check-prefix=STDOUT --allow-empty
// RUN: not gpuc-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not gpuc-opt %S/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not gpuc-opt %s -p no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not gpuc-opt %s -p 'dce{no-such-option=1}' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not gpuc-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not gpuc-opt %s -t no-such-target 2>&1 | FileCheck %s --check-prefix=TARGET

// Without --split-input-file the file is one module: its syntax error comes first.
// CHECK: bad_input.mlir:[[# @LINE + 20]]:33: error: unknown address space 'shard'; expected one of: global, shared, local, constant, generic
// CHECK-NEXT: gpuc.func @k(%p: !gpuc.ptr<f32, shard>) kernel {
// CHECK-NEXT: {{^ {32}\^$}}
// CHECK-NOT: Traceback
// STDOUT-NOT: {{.}}
// SPLIT: bad_input.mlir:[[# @LINE + 9]]:8: error: 'gpuc.call' op callee @missing
// SPLIT: bad_input.mlir:[[# @LINE + 14]]:33: error: unknown address space 'shard'
// SPLIT-NOT: Traceback
// MISSING: gpuc-opt: error: cannot read input file '{{.*}}does-not-exist.mlir': No such file or directory
// PASS: gpuc-opt: error: bad pass pipeline 'no-such-pass': Unrecognized passes: ['no-such-pass']
// OPTION: gpuc-opt: error: bad pass pipeline 'dce{no-such-option=1}'
// FLAG: gpuc-opt: error: unrecognized arguments: --no-such-flag (see gpuc-opt --help)
// TARGET: gpuc-opt: error: unknown target 'no-such-target'; available: mlir
gpuc.func @k(%a: f32) kernel {
  %r = gpuc.call @missing(%a) : (f32) -> f32
  gpuc.return
}

// -----

gpuc.func @k(%p: !gpuc.ptr<f32, shard>) kernel {
  gpuc.return
}
