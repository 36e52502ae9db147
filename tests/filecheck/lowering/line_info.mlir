// RUN: gpuc compile -g -O0 --no-fp-contract --target ptx --emit llvm %s | FileCheck %s
// RUN: gpuc-opt %s -p inline --print-debuginfo | FileCheck %s --check-prefix=INLINE

// Line tables (-g): a subprogram per function, each instruction at the line
// and column of the op it comes from; a helper inlined at the dialect level
// keeps its lines, inlined at the call's (`inlinedAt`); a frontend's
// locations (a file location, a fused one, a name location) are its lines.

// CHECK-LABEL: define ptx_kernel void @k(
// CHECK-SAME:  !dbg ![[K:[0-9]+]]
gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.thread_id x
  // CHECK: load float{{.*}}, !dbg ![[LOAD:[0-9]+]]
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  // CHECK: fmul float{{.*}}, !dbg ![[MUL:[0-9]+]]
  // CHECK: fadd float{{.*}}, !dbg ![[FRONTEND:[0-9]+]]
  // CHECK: fsub float{{.*}}, !dbg ![[FUSED:[0-9]+]]
  %w = gpuc.call @twice(%v) : (f32) -> f32
  // CHECK: store float{{.*}}, !dbg ![[STORE:[0-9]+]]
  gpuc.store %w, %p[%i] : !gpuc.ptr<f32, global> loc("store"("kern.py":9:5))
  gpuc.return
}

// INLINE-LABEL: gpuc.func @k(
// INLINE:       arith.mulf {{.*}} loc(callsite("twice"("{{.*}}line_info.mlir":34:8) at "{{.*}}line_info.mlir":18:8))
// INLINE:       arith.addf {{.*}} loc(callsite("twice"("kern.py":4:3) at "{{.*}}line_info.mlir":18:8))
// INLINE:       arith.subf {{.*}} loc(callsite("twice"(fused["kern.py":5:7, "kern.py":5:9]) at "{{.*}}line_info.mlir":18:8))
// INLINE:       gpuc.store {{.*}} loc("store"("kern.py":9:5))
// INLINE-NOT:   gpuc.func private @twice

// CHECK-NOT: define
gpuc.func private @twice(%x: f32) -> f32 helper always_inline {
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  %z = arith.addf %y, %x : f32 loc("kern.py":4:3)
  %r = arith.subf %z, %x : f32 loc(fused["kern.py":5:7, "kern.py":5:9])
  gpuc.return %r : f32
}

// CHECK-DAG: ![[FILE:[0-9]+]] = !DIFile(filename: "{{.*}}line_info.mlir", directory: "")
// CHECK-DAG: ![[PY:[0-9]+]] = !DIFile(filename: "kern.py", directory: "")
// CHECK-DAG: ![[K]] = distinct !DISubprogram(name: "k", scope: ![[FILE]], file: ![[FILE]], line: 11,
// CHECK-DAG: ![[TWICE:[0-9]+]] = distinct !DISubprogram(name: "twice", scope: ![[FILE]], file: ![[FILE]], type:
// CHECK-DAG: ![[LOAD]] = !DILocation(line: 14, column: 8, scope: ![[K]])
// CHECK-DAG: ![[MUL]] = !DILocation(line: 34, column: 8, scope: ![[TWICE]], inlinedAt: ![[CALL:[0-9]+]])
// CHECK-DAG: ![[CALL]] = !DILocation(line: 18, column: 8, scope: ![[K]])
// CHECK-DAG: ![[FRONTEND]] = !DILocation(line: 4, column: 3, scope: ![[TWICE_PY:[0-9]+]], inlinedAt: ![[CALL]])
// CHECK-DAG: ![[TWICE_PY]] = !DILexicalBlockFile(scope: ![[TWICE]], file: ![[PY]], discriminator: 0)
// CHECK-DAG: ![[FUSED]] = !DILocation(line: 5, column: 7, scope: ![[TWICE_PY]], inlinedAt: ![[CALL]])
// CHECK-DAG: ![[STORE]] = !DILocation(line: 9, column: 5, scope: ![[K_PY:[0-9]+]])
// CHECK-DAG: ![[K_PY]] = !DILexicalBlockFile(scope: ![[K]], file: ![[PY]], discriminator: 0)
