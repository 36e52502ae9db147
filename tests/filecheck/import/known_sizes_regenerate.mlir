// REQUIRES: mlir-opt-16, mlir-opt-19, mlir-opt-22
// The committed outlined texts are regenerated from Inputs/ by each installed
// mlir-opt's gpu-kernel-outlining and imported again, against the same checks.
// RUN: mlir-opt-16 --gpu-kernel-outlining --mlir-print-op-generic %S/Inputs/versions/known_sizes.mlir | gpuc-opt -p import | filecheck %S/known_sizes.mlir
// RUN: mlir-opt-19 --gpu-kernel-outlining --mlir-print-op-generic %S/Inputs/versions/known_sizes.mlir | gpuc-opt -p import | filecheck %S/known_sizes.mlir
// RUN: mlir-opt-22 --gpu-kernel-outlining --mlir-print-op-generic %S/Inputs/versions/known_sizes.mlir | gpuc-opt -p import | filecheck %S/known_sizes.mlir
// RUN: mlir-opt-22 --gpu-kernel-outlining --mlir-print-op-generic %S/Inputs/versions/known_sizes.mlir | gpuc-opt -p import -t ptx | filecheck %S/known_sizes.mlir --check-prefix=PTX
