// REQUIRES: mlir-opt-19, mlir-opt-22
// The committed generic texts of the MLIR 19+ reduction kinds are
// regenerated from Inputs/ with each mlir-opt and imported again, against
// the same checks.
// RUN: mlir-opt-19 --mlir-print-op-generic %S/Inputs/versions/reduce_kinds.mlir | gpuc-opt -p import | filecheck %S/reduce_kinds.mlir
// RUN: mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/reduce_kinds.mlir | gpuc-opt -p import | filecheck %S/reduce_kinds.mlir
