// gpu.printf becomes gpuc.printf, from MLIR 16's generic form (the format an
// attribute) and MLIR 19's and 22's (a property), committed in Inputs/.
// RUN: gpuc-opt -p import %S/Inputs/versions/printf_mlir16_generic.mlir | FileCheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/printf_mlir19_generic.mlir | FileCheck %s
// RUN: gpuc-opt -p import %S/Inputs/versions/printf_mlir22_generic.mlir | FileCheck %s
// A format that does not match its values is a located diagnostic.
// RUN: not gpuc-opt -p import %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: gpuc.func @hello(%arg0: i32, %arg1: f32, %arg2: i8) kernel
// CHECK-NEXT: %0 = gpuc.thread_id x
// CHECK-NEXT: gpuc.printf "t=%lld a=%d f=%f c=%d\0A" %0, %arg0, %arg1, %arg2 : index, i32, f32, i8
// CHECK-NEXT: gpuc.printf "no values\0A"
// CHECK-NEXT: gpuc.return

// BAD: printf.mlir:[[# @LINE + 4]]:5: error: 'gpuc.printf' op the format has 2 conversions but 1 value is given
"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = (i32) -> (), kernel}> ({
  ^bb0(%x: i32):
    "gpu.printf"(%x) <{format = "%d %d"}> : (i32) -> ()
    "gpu.return"() : () -> ()
  }) {sym_name = "s"} : () -> ()
}) : () -> ()
