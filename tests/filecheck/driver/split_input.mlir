// --split-input-file: each piece between `// -----` lines is its own module,
// printed with the separator between them; an empty piece is an empty module,
// as in MLIR. The marker inside a line (like above) does not split.
// RUN: gpuc-opt %s --split-input-file | FileCheck %s

// CHECK-LABEL: builtin.module {
// CHECK-NEXT:    gpuc.func @first() kernel {
// CHECK:       // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    gpuc.func @second() kernel {
// CHECK:         gpuc.func @first() kernel {
// CHECK:       // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:  }
// CHECK-NOT:   gpuc.func
gpuc.func @first() kernel {
  gpuc.return
}

// -----

// The same symbol name again: another module, so no redefinition.
gpuc.func @second() kernel {
  gpuc.return
}
gpuc.func @first() kernel {
  gpuc.return
}

// -----

// Only a comment here.
