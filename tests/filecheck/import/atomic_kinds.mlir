// memref.atomic_rmw kinds as each MLIR version prints them. MLIR 16's generic
// `{kind = N}` and every custom form (a keyword) are read; the generic
// `<{kind = N}>` of MLIR 18 and later is refused where MLIR 19 and 22 number
// the kind differently (Inputs/ has the command that made each file).
// RUN: gpuc-opt -p import %S/Inputs/versions/atomic_kinds_mlir16_generic.mlir | filecheck %s --check-prefix=MLIR16
// RUN: gpuc-opt -p import %S/Inputs/versions/atomic_kinds_func_mlir16.mlir | filecheck %s --check-prefix=CUSTOM
// RUN: gpuc-opt -p import %S/Inputs/versions/atomic_kinds_func_mlir22.mlir | filecheck %s --check-prefix=CUSTOM
// RUN: not gpuc-opt -p import %S/Inputs/versions/atomic_kinds_mlir19_generic.mlir 2>&1 | filecheck %s --check-prefix=MLIR19
// RUN: not gpuc-opt -p import %S/Inputs/versions/atomic_kinds_mlir22_generic.mlir 2>&1 | filecheck %s --check-prefix=MLIR22

// MLIR16-LABEL: gpuc.func @atomics(
// MLIR16: gpuc.atomic_rmw add %arg0
// MLIR16-NEXT: gpuc.atomic_rmw exchange %arg0
// MLIR16-NEXT: gpuc.atomic_rmw max %arg0
// MLIR16-NEXT: gpuc.atomic_rmw umax %arg0
// MLIR16-NEXT: gpuc.atomic_rmw min %arg0
// MLIR16-NEXT: gpuc.atomic_rmw umin %arg0
// MLIR16-NEXT: gpuc.atomic_rmw or %arg0
// MLIR16-NEXT: gpuc.atomic_rmw and %arg0
// MLIR16-NEXT: gpuc.atomic_rmw add %arg1

// CUSTOM-LABEL: gpuc.func @atomics(
// CUSTOM: gpuc.atomic_rmw umax %arg0[%c3], %arg2
// CUSTOM-NEXT: gpuc.atomic_rmw and %arg0[%c7], %arg2
// CUSTOM-NEXT: gpuc.atomic_rmw exchange %arg0[%c0], %arg2
// CUSTOM-NEXT: gpuc.atomic_rmw add %arg1[%c0], %arg3

// MLIR19: atomic_kinds_mlir19_generic.mlir:15:{{[0-9]+}}: error: memref.atomic_rmw with kind = 2 in properties ({{.*}}) cannot be read: MLIR 18-19 number it assign, MLIR 22 andi
// MLIR22: atomic_kinds_mlir22_generic.mlir:15:{{[0-9]+}}: error: memref.atomic_rmw with kind = 3 in properties ({{.*}}) cannot be read: MLIR 18-19 number it maximumf, MLIR 22 assign
// MLIR19-REGEN: error: memref.atomic_rmw with kind = 2 in properties ({{.*}}) cannot be read: MLIR 18-19 number it assign, MLIR 22 andi
// MLIR22-REGEN: error: memref.atomic_rmw with kind = 3 in properties ({{.*}}) cannot be read: MLIR 18-19 number it maximumf, MLIR 22 assign
