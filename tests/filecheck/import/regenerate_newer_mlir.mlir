// REQUIRES: mlir-opt-19, mlir-opt-22
// The committed MLIR 19 and 22 fixtures are regenerated and checked again.
// RUN: mlir-opt-19 --mlir-print-op-generic %S/Inputs/versions/atomic_kinds.mlir | not gpuc-opt -p import 2>&1 | filecheck %S/atomic_kinds.mlir --check-prefix=MLIR19-REGEN
// RUN: mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/atomic_kinds.mlir | not gpuc-opt -p import 2>&1 | filecheck %S/atomic_kinds.mlir --check-prefix=MLIR22-REGEN
// RUN: mlir-opt-22 %S/Inputs/versions/atomic_kinds_func.mlir | gpuc-opt -p import | filecheck %S/atomic_kinds.mlir --check-prefix=CUSTOM
// RUN: mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/mixed_host.mlir | gpuc-opt -p import | filecheck %S/mixed_host.mlir
