// A kernel with a known block size (gpu.known_block_size, as the import and
// gpuc's outlining record it) declares it as `.reqntid x, y, z`; a missing
// y or z is 1. A kernel without one declares nothing.
// RUN: gpuc-opt %s -t ptx | FileCheck %s

// CHECK-LABEL: .visible .entry fixed(
// CHECK:       .reqntid 64, 2, 1
// CHECK-NEXT:  {
gpuc.func @fixed(%p: !gpuc.ptr<i32, global>) kernel attributes {gpu.known_block_size = array<i32: 64, 2, 1>} {
  %c = arith.constant 1 : i32
  gpuc.store %c, %p : !gpuc.ptr<i32, global>
  gpuc.return
}

// CHECK-LABEL: .visible .entry row(
// CHECK:       .reqntid 128, 1, 1
gpuc.func @row(%p: !gpuc.ptr<i32, global>) kernel attributes {gpu.known_block_size = array<i32: 128>} {
  gpuc.return
}

// CHECK-LABEL: .visible .entry free(
// CHECK-NOT:   .reqntid
// CHECK:       ret;
gpuc.func @free(%p: !gpuc.ptr<i32, global>) kernel {
  gpuc.return
}
