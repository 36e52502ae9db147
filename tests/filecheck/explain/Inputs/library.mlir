// A library for jobs.mlir: @lib_square calls @lib_mul directly, so a job
// on @lib_square links @lib_mul along under its own name.
builtin.module {
  gpuc.func @lib_square(%x: f32) -> f32 helper {
    %y = gpuc.call @lib_mul(%x, %x) : (f32, f32) -> f32
    gpuc.return %y : f32
  }
  gpuc.func @lib_mul(%a: f32, %b: f32) -> f32 helper {
    %p = arith.mulf %a, %b : f32
    gpuc.return %p : f32
  }
}
