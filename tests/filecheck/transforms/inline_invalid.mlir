// inline refuses a recursive always-inline cycle and names it.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p inline | FileCheck %s

gpuc.func @k(%x: f32) kernel {
  %r = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @a(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @b(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @b(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @c(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @c(%x: f32) -> f32 helper always_inline {
  // CHECK: inline_invalid.mlir:[[# @LINE + 1]]:8: error: 'gpuc.call' op recursive always-inline cycle @a -> @b -> @c -> @a: it cannot be inlined; mark one of these functions no_inline (or drop always_inline)
  %y = gpuc.call @a(%x) : (f32) -> f32
  gpuc.return %y : f32
}

// -----

gpuc.func private @self(%x: f32) -> f32 helper always_inline {
  // CHECK: [[# @LINE + 1]]:8: error: 'gpuc.call' op recursive always-inline cycle @self -> @self: it cannot be inlined
  %y = gpuc.call @self(%x) : (f32) -> f32
  gpuc.return %y : f32
}
