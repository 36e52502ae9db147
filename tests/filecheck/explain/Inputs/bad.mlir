// Bad input for errors.mlir: a call to a symbol that does not exist.
builtin.module {
  gpuc.func @k(%x: f32) kernel {
    %y = gpuc.call @missing(%x) : (f32) -> f32
    gpuc.return
  }
}
