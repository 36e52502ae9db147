// lift-cf: cf branches into scf ops. Without options only regions that
// reach a barrier or a subgroup collective are lifted; `everywhere` lifts
// every multi-block region. What the lift cannot take stays as it is.
// RUN: gpuc-opt --split-input-file -p 'lift-cf{everywhere=true}' %s | filecheck %s
// RUN: gpuc-opt --split-input-file -p lift-cf %s | filecheck %s --check-prefix=SPLITS

// A diamond: the join's block argument is the scf.if's result.
// CHECK-LABEL: gpuc.func @diamond
// CHECK-NEXT:    %[[R:.*]] = scf.if %c -> (f32) {
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %x, %x : f32
// CHECK-NEXT:      scf.yield %[[Y]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.return %[[R]] : f32
// SPLITS-LABEL: gpuc.func @diamond
// SPLITS-NEXT:    cf.cond_br
gpuc.func @diamond(%c: i1, %x: f32) -> f32 helper {
  cf.cond_br %c, ^a, ^b(%x : f32)
^a:
  %y = arith.addf %x, %x : f32
  cf.br ^j(%y : f32)
^b(%z: f32):
  cf.br ^j(%z : f32)
^j(%r: f32):
  gpuc.return %r : f32
}

// -----

// A triangle with a barrier (lifted without options too), and an early
// return: the paths to the function's exit end in one gpuc.return.
// CHECK-LABEL: gpuc.func @early_return
// CHECK-NEXT:    scf.if %done {
// CHECK-NEXT:    } else {
// CHECK-NEXT:      gpuc.barrier
// CHECK-NEXT:      gpuc.store %x, %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.return
// CHECK-NOT:     {{ cf\.}}
// SPLITS-LABEL: gpuc.func @early_return
// SPLITS-NOT:     {{ cf\.}}
// SPLITS:         gpuc.return
gpuc.func @early_return(%p: !gpuc.ptr<f32, global>, %x: f32, %done: i1) kernel {
  cf.cond_br %done, ^exit, ^work
^work:
  gpuc.barrier
  gpuc.store %x, %p : !gpuc.ptr<f32, global>
  gpuc.return
^exit:
  gpuc.return
}

// -----

// cf.switch: an scf.index_switch on the flag as an index (negative cases
// as they are), the cases' block arguments flowing to the join.
// CHECK-LABEL: gpuc.func @switch
// CHECK-NEXT:    %[[F:.*]] = arith.index_cast %flag : i32 to index
// CHECK-NEXT:    %[[R:.*]] = scf.index_switch %[[F]] -> f32
// CHECK-NEXT:    case 1 {
// CHECK-NEXT:      scf.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    case -1 {
// CHECK-NEXT:      %[[N:.*]] = arith.negf %x : f32
// CHECK-NEXT:      scf.yield %[[N]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    default {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[Z]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.return %[[R]] : f32
gpuc.func @switch(%flag: i32, %x: f32) -> f32 helper {
  cf.switch %flag : i32, [
    default: ^zero,
    1: ^j(%x : f32),
    -1: ^neg
  ]
^zero:
  %z = arith.constant 0.0 : f32
  cf.br ^j(%z : f32)
^neg:
  %n = arith.negf %x : f32
  cf.br ^j(%n : f32)
^j(%r: f32):
  gpuc.return %r : f32
}

// -----

// A natural loop: an scf.while whose `before` region is the loop's body,
// true with the header's next arguments, false with the exit's, then the
// loop's values used after it (here its counter, a header argument).
// CHECK-LABEL: gpuc.func @loop
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK-NEXT:    %[[F:.*]] = arith.constant false
// CHECK-NEXT:    %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[KW:[0-9]+]] = scf.while (%k = %c0, %acc = %x) : (index, f32) -> (index, f32, f32, index) {
// CHECK-NEXT:      %[[M:.*]] = arith.cmpi ult, %k, %n : index
// CHECK-NEXT:      %[[C0:[0-9]+]], %[[C1:[0-9]+]], %[[C2:[0-9]+]], %[[C3:[0-9]+]], %[[C4:[0-9]+]] = scf.if %[[M]] -> (i1, index, f32, f32, index) {
// CHECK:             scf.yield %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i1, index, f32, f32, index
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[F]], %k, %acc, %acc, %k : i1, index, f32, f32, index
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.condition(%[[C0]]) %[[C1]], %[[C2]], %[[C3]], %[[C4]] : index, f32, f32, index
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[B0:[^:]*]]: index, %[[B1:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: index):
// CHECK-NEXT:      scf.yield %[[B0]], %[[B1]] : index, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = arith.index_cast %[[KW]] : index to i32
// CHECK:         gpuc.return
gpuc.func @loop(%x: f32, %n: index) -> f32 helper {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %x : index, f32)
^head(%k: index, %acc: f32):
  %more = arith.cmpi ult, %k, %n : index
  cf.cond_br %more, ^body, ^done(%acc : f32)
^body:
  %acc2 = arith.addf %acc, %acc : f32
  %k2 = arith.addi %k, %c1 : index
  cf.br ^head(%k2, %acc2 : index, f32)
^done(%r: f32):
  %ki = arith.index_cast %k : index to i32
  %kf = arith.sitofp %ki : i32 to f32
  %s = arith.addf %r, %kf : f32
  gpuc.return %s : f32
}

// -----

// Irreducible control flow (two entries into the cycle ^a, ^b) stays.
// CHECK-LABEL: gpuc.func @irreducible
// CHECK-NEXT:    cf.cond_br %c, ^{{.*}}, ^{{.*}}
gpuc.func @irreducible(%c: i1) helper {
  cf.cond_br %c, ^a, ^b
^a:
  cf.cond_br %c, ^b, ^done
^b:
  cf.cond_br %c, ^a, ^done
^done:
  gpuc.return
}

// -----

// A loop with two exit targets (a return from inside it): the scf.while
// also forwards which one it left by, and an scf.index_switch on it takes
// each target's path.
// CHECK-LABEL: gpuc.func @return_in_loop
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[WHICH:.*]] = scf.while () : () -> index {
// CHECK:             scf.yield %{{.*}}, %[[ONE]] : i1, index
// CHECK:           scf.condition(%{{.*}}) %{{.*}} : index
// CHECK:         scf.index_switch %[[WHICH]]
// CHECK-NEXT:    case 1 {
// CHECK-NEXT:      gpuc.store %c1, %p : !gpuc.ptr<i32, global>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    default {
// CHECK-NEXT:      gpuc.store %c0, %p : !gpuc.ptr<i32, global>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    gpuc.return
gpuc.func @return_in_loop(%c: i1, %d: i1, %p: !gpuc.ptr<i32, global>) helper {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^head
^head:
  cf.cond_br %c, ^body, ^after
^body:
  cf.cond_br %d, ^early, ^head
^early:
  gpuc.store %c1, %p : !gpuc.ptr<i32, global>
  gpuc.return
^after:
  gpuc.store %c0, %p : !gpuc.ptr<i32, global>
  gpuc.return
}

// -----

// A loop that never ends has no exit to give the scf.while: it stays.
// CHECK-LABEL: gpuc.func @forever
// CHECK-NEXT:    cf.br
gpuc.func @forever() helper {
  cf.br ^spin
^spin:
  gpuc.barrier
  cf.br ^spin
}
