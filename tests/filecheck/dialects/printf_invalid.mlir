// What gpuc.printf refuses: a format whose conversions do not match the
// values, conversions that take no value gpuc can pass.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

gpuc.func @k(%x: i32) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op the format has 2 conversions but 1 value is given
  gpuc.printf "%d %d" %x : i32
  gpuc.return
}

// -----

gpuc.func @k(%x: i32) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op value 0 is i32, but its conversion '%.2f' takes an f16, f32 or f64
  gpuc.printf "%.2f" %x : i32
  gpuc.return
}

// -----

gpuc.func @k(%x: i128) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op value 0 is i128, but its conversion '%d' takes an integer of at most 64 bits or an index
  gpuc.printf "%lld" %x : i128
  gpuc.return
}

// -----

gpuc.func @k(%x: i32) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op conversion '%s' takes a string, which gpuc.printf cannot pass; put the text in the format itself
  gpuc.printf "%s" %x : i32
  gpuc.return
}

// -----

gpuc.func @k(%x: i32) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op conversion '%*d' takes its width or precision from an argument ('*')
  gpuc.printf "%*d" %x : i32
  gpuc.return
}

// -----

gpuc.func @k() kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op the format ends in an incomplete conversion '%'; write '%%' for a percent sign
  gpuc.printf "50%"
  gpuc.return
}

// -----

gpuc.func @k(%x: bf16) kernel {
  // CHECK: printf_invalid.mlir:[[# @LINE + 1]]:3: error: 'gpuc.printf' op value 0 is bf16, but its conversion '%f' takes an f16, f32 or f64 (arith.extf the bf16 to f32 first)
  gpuc.printf "%f" %x : bf16
  gpuc.return
}
