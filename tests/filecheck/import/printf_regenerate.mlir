// REQUIRES: mlir-opt-16, mlir-opt-19, mlir-opt-22
// The committed generic texts of gpu.printf are regenerated from Inputs/ by
// each installed mlir-opt (MLIR 22's custom form puts a comma after the
// format) and imported again, against the same checks.
// RUN: mlir-opt-16 --mlir-print-op-generic %S/Inputs/versions/printf.mlir | gpuc-opt -p import | FileCheck %S/printf.mlir
// RUN: mlir-opt-19 --mlir-print-op-generic %S/Inputs/versions/printf.mlir | gpuc-opt -p import | FileCheck %S/printf.mlir
// RUN: mlir-opt-22 --mlir-print-op-generic %S/Inputs/versions/printf_mlir22.mlir | gpuc-opt -p import | FileCheck %S/printf.mlir
