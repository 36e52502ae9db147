// REQUIRES: mlir-opt-16
// The committed MLIR 16 text of the subgroup ops is regenerated from Inputs/
// and imported again, against the same checks.
// RUN: mlir-opt-16 --mlir-print-op-generic %S/Inputs/versions/subgroup.mlir | gpuc-opt -p import | filecheck %S/subgroup.mlir
