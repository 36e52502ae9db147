// Host code gpuc cannot parse (async.execute, vector.print) is skipped, not
// parsed; the gpu.module is compiled.
// RUN: gpuc-opt -p import %S/Inputs/versions/mixed_host_mlir16_generic.mlir | filecheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/mixed_host_mlir22_generic.mlir | filecheck %s
// RUN: gpuc compile -v --no-cache --target native --emit mlir %S/Inputs/versions/mixed_host_mlir16_generic.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NOTE

// CHECK-LABEL: gpuc.func @add(
// CHECK: gpuc.thread_id x
// CHECK: gpuc.load
// CHECK: arith.addf
// CHECK: gpuc.store
// CHECK-NOT: async
// CHECK-NOT: vector

// NOTE: gpuc: note: {{.*}}mixed_host_mlir16_generic.mlir:{{[0-9]+}}: the host code around the 1 gpu.module(s) was skipped, not parsed (unknown operation 'async.execute'
