// REQUIRES: mlir-opt-16
// The committed MLIR 16 text is regenerated from Inputs/ and imported again,
// against the same checks.
// RUN: mlir-opt-16 --mlir-print-op-generic %S/Inputs/saxpy.mlir | gpuc-opt -p import | gpuc-opt | filecheck %S/saxpy.mlir
// RUN: mlir-opt-16 --mlir-print-op-generic %S/Inputs/reduction.mlir | gpuc-opt -p import | gpuc-opt | filecheck %S/reduction.mlir
// RUN: mlir-opt-16 --mlir-print-op-generic %S/Inputs/func_kernels.mlir | gpuc-opt -p import | gpuc-opt | filecheck %S/func_kernels.mlir
