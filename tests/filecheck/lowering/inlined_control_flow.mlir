// RUN: gpuc-opt -p inline %s -t 'llvm{target=ptx stage=link}' | FileCheck %s

// After `inline`, a multi-block always-inline callee sits in an
// scf.execute_region inside a single-block region (scf.if, scf.for), or is
// split into the caller's own CFG at the top level. Its cf.cond_br / cf.br
// pass block arguments; each becomes a phi fed by exactly its edge, and each
// scf.yield of the region feeds the region's result phi.

gpuc.func private @pick(%v: f32, %lo: f32) -> f32 helper always_inline {
  %small = arith.cmpf olt, %v, %lo : f32
  cf.cond_br %small, ^low(%lo : f32), ^high(%v : f32)
^low(%a: f32):
  %two = arith.constant 2.0 : f32
  %d = arith.mulf %a, %two : f32
  cf.br ^done(%d : f32)
^high(%b: f32):
  %n = arith.negf %b : f32
  cf.br ^done(%n : f32)
^done(%r: f32):
  gpuc.return %r : f32
}

// CHECK-LABEL: define float @in_if(i1 %c, float %x, float %lo)
// CHECK:       if.then:
// CHECK-NEXT:    br label %[[ENTRY:region[.0-9]*]]
// CHECK:       if.end:
// CHECK-NEXT:    %[[R:.*]] = phi float [ %[[Y:.*]], %[[END:region.end[.0-9]*]] ], [ %x, %if.else ]
// CHECK-NEXT:    ret float %[[R]]
// CHECK:       [[END]]:
// CHECK-NEXT:    %[[Y]] = phi float [ %[[DONE:.*]], %[[BB3:region.bb3[.0-9]*]] ]
// CHECK-NEXT:    br label %if.end
// CHECK:       [[ENTRY]]:
// CHECK-NEXT:    %small = fcmp olt float %x, %lo
// CHECK-NEXT:    br i1 %small, label %[[THEN:br.then[.0-9]*]], label %[[ELSE:br.else[.0-9]*]]
// CHECK:       [[BB1:region.bb1[.0-9]*]]:
// CHECK-NEXT:    %a = phi float [ %lo, %[[THEN]] ]
// CHECK:       [[BB2:region.bb2[.0-9]*]]:
// CHECK-NEXT:    %b = phi float [ %x, %[[ELSE]] ]
// CHECK:       [[BB3]]:
// CHECK-NEXT:    %[[DONE]] = phi float [ %{{.*}}, %[[BB2]] ], [ %d, %[[BB1]] ]
// CHECK-NEXT:    br label %[[END]]
gpuc.func @in_if(%c: i1, %x: f32, %lo: f32) -> f32 helper {
  %r = scf.if %c -> (f32) {
    %p = gpuc.call @pick(%x, %lo) : (f32, f32) -> f32
    scf.yield %p : f32
  } else {
    scf.yield %x : f32
  }
  gpuc.return %r : f32
}

// The loop-carried value enters the region and its result is yielded back
// to the loop header.
// CHECK-LABEL: define float @in_for(float %x, float %lo)
// CHECK:       for.head:
// CHECK-NEXT:    %i = phi i64
// CHECK-NEXT:    %acc = phi float [ %x, %entry ], [ %[[NEXT:.*]], %[[END:region.end[.0-9]*]] ]
// CHECK:       for.body:
// CHECK-NEXT:    br label %[[ENTRY:region[.0-9]*]]
// CHECK:       for.end:
// CHECK-NEXT:    ret float %acc
// CHECK:       [[END]]:
// CHECK-NEXT:    %[[NEXT]] = phi float [ %{{.*}}, %{{region.bb3[.0-9]*}} ]
// CHECK-NEXT:    add nsw i64 %i, 1
// CHECK-NEXT:    br label %for.head
// CHECK:       [[ENTRY]]:
// CHECK-NEXT:    %small = fcmp olt float %acc, %lo
gpuc.func @in_for(%x: f32, %lo: f32) -> f32 helper {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f32) {
    %p = gpuc.call @pick(%acc, %lo) : (f32, f32) -> f32
    scf.yield %p : f32
  }
  gpuc.return %s : f32
}

// At the top level the callee's blocks join the caller's CFG; its return
// becomes a branch carrying the result to the rest of the caller.
// CHECK-LABEL: define float @at_top(float %x, float %lo)
// CHECK:       bb1:
// CHECK-NEXT:    %v = phi float [ %x, %entry ]
// CHECK-NEXT:    %[[LO:.*]] = phi float [ %lo, %entry ]
// CHECK:         br i1 %small, label %br.then, label %br.else
// CHECK:       bb2:
// CHECK-NEXT:    %a = phi float [ %[[LO]], %br.then ]
// CHECK:       bb3:
// CHECK-NEXT:    %b = phi float [ %v, %br.else ]
// CHECK:       bb4:
// CHECK-NEXT:    %r = phi float [ %n, %bb3 ], [ %d, %bb2 ]
// CHECK-NEXT:    br label %bb5
// CHECK:       bb5:
// CHECK-NEXT:    %p = phi float [ %r, %bb4 ]
// CHECK-NEXT:    fadd contract float %p, 1.000000e+00
gpuc.func @at_top(%x: f32, %lo: f32) -> f32 helper {
  %p = gpuc.call @pick(%x, %lo) : (f32, f32) -> f32
  %one = arith.constant 1.0 : f32
  %q = arith.addf %p, %one : f32
  gpuc.return %q : f32
}
