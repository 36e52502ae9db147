// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s

// scf.if with results: both branches feed one phi in the merge block.
// CHECK-LABEL: define float @if_result(i1 %c, float %a, float %b)
// CHECK: br i1 %c, label %if.then, label %if.else
// CHECK: if.end:
// CHECK-NEXT: %r = phi float [ %a, %if.then ], [ %b, %if.else ]
gpuc.func @if_result(%c: i1, %a: f32, %b: f32) -> f32 helper {
  %r = scf.if %c -> (f32) {
    scf.yield %a : f32
  } else {
    scf.yield %b : f32
  }
  gpuc.return %r : f32
}

// scf.for: a header with the induction variable and the iteration arguments
// as phis, a signed bound check, the body, and the increment.
// CHECK-LABEL: define i32 @for_sum(i64 %n, i32 %init)
// CHECK: for.head:
// CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ [[NEXT:%.*]], %for.body ]
// CHECK-NEXT: %acc = phi i32 [ %init, %entry ], [ [[SUM:%.*]], %for.body ]
// CHECK: icmp slt i64 %i, %n
// CHECK: for.body:
// CHECK: [[NEXT]] = add nsw i64 %i, 1
// CHECK: for.end:
// CHECK-NEXT: ret i32 %acc
gpuc.func @for_sum(%n: index, %init: i32) -> i32 helper {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (i32) {
    %ii = arith.index_cast %i : index to i32
    %next = arith.addi %acc, %ii : i32
    scf.yield %next : i32
  }
  gpuc.return %s : i32
}

// scf.while: the condition block's values go to the body or out of the loop.
// CHECK-LABEL: define i64 @while_halve(i64 %start)
// CHECK: while.cond:
// CHECK-NEXT: %x = phi i64 [ %start, %entry ], [ %half, %while.body ]
// CHECK: br i1 %more, label %while.body, label %while.end
// CHECK: while.body:
// CHECK-NEXT: %y = phi i64 [ %x, %while.cond ]
// CHECK: while.end:
// CHECK-NEXT: %r = phi i64 [ %x, %while.cond ]
gpuc.func @while_halve(%start: index) -> index helper {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%x = %start) : (index) -> index {
    %more = arith.cmpi ugt, %x, %c0 : index
    scf.condition(%more) %x : index
  } do {
  ^bb0(%y: index):
    %half = arith.shrui %y, %c1 : index
    scf.yield %half : index
  }
  gpuc.return %r : index
}

// scf.index_switch: one case block per value, a default, a merge phi.
// CHECK-LABEL: define i32 @switch(i64 %k)
// CHECK: switch i64 %k, label %switch.default [
// CHECK-NEXT: i64 2, label %switch.case2
// CHECK-NEXT: ]
// CHECK: %r = phi i32 [ 20, %switch.case2 ], [ 0, %switch.default ]
gpuc.func @switch(%k: index) -> i32 helper {
  %r = scf.index_switch %k -> i32
  case 2 {
    %v = arith.constant 20 : i32
    scf.yield %v : i32
  }
  default {
    %v = arith.constant 0 : i32
    scf.yield %v : i32
  }
  gpuc.return %r : i32
}

// cf: block arguments are phis fed by every branch to the block.
// CHECK-LABEL: define i32 @cfg(i1 %c, i32 %a, i32 %b)
// CHECK: bb1:
// CHECK-NEXT: %x = phi i32 [ %a, %br.then ]
// CHECK: bb2:
// CHECK-NEXT: %v = phi i32 [ %b, %br.else ], [ %x, %bb1 ]
// CHECK: ret i32 %v
gpuc.func @cfg(%c: i1, %a: i32, %b: i32) -> i32 helper {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2(%b : i32)
^bb1(%x: i32):
  cf.br ^bb2(%x : i32)
^bb2(%v: i32):
  gpuc.return %v : i32
}
