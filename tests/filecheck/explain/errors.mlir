// Bad requests to explain are diagnostics with exit status 1 and nothing on
// stdout: an unknown symbol (the message lists the known ones), an unknown
// format, --emit (explain reads the target's own artefact), and bad input,
// located as gpuc compile locates it.
// RUN: not gpuc explain %s @nope 2>&1 | FileCheck %s --check-prefix=SYMBOL
// RUN: not gpuc explain %s @nope 2>/dev/null | FileCheck %s --check-prefix=STDOUT --allow-empty
// RUN: not gpuc explain %s --format xml 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not gpuc explain %s --emit llvm 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not gpuc explain %S/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not gpuc explain %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// SYMBOL: errors.mlir: error: no symbol @nope in this compile; explained symbols: @k, @h
// SYMBOL-NOT: Traceback
// STDOUT-NOT: {{.}}
// FORMAT: gpuc: error: --format xml: choose one of text, json, dot
// EMIT: gpuc: error: --emit does not apply to gpuc explain (it reads the target's own artefact); drop it
// MISSING: gpuc: error: no such file: {{.*}}does-not-exist.mlir
// BAD: bad.mlir:4:10: error: 'gpuc.call' op callee @missing
// BAD-NOT: Traceback
gpuc.func @k(%x: f32) kernel {
  %y = gpuc.call @h(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @h(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
