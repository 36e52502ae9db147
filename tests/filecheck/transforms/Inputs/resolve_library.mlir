// A library for resolve_deferred.mlir: @lib_square calls @lib_mul directly
// (linked along under its own name) and defers @lib_tail as its own job.
builtin.module {
  gpuc.func @lib_square(%x: f32) -> f32 helper {
    %y = gpuc.call @lib_mul(%x, %x) : (f32, f32) -> f32
    %z = gpuc.deferred_call @lib_tail(%y) #gpuc.job<helper> : (f32) -> f32
    gpuc.return %z : f32
  }
  gpuc.func @lib_mul(%a: f32, %b: f32) -> f32 helper {
    %p = arith.mulf %a, %b : f32
    gpuc.return %p : f32
  }
  gpuc.func @lib_tail(%x: f32) -> f32 helper {
    gpuc.return %x : f32
  }
  gpuc.func @lib_unused(%x: f32) -> f32 helper {
    gpuc.return %x : f32
  }
  gpuc.func @shadowed(%x: f32) -> f32 helper {
    %c = arith.constant 2.0 : f32
    %y = arith.mulf %x, %c : f32
    gpuc.return %y : f32
  }
}
