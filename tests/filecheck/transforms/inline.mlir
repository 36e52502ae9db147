// inline: calls to always_inline callees are inlined, bottom-up; no_inline
// callees and callees without a hint stay calls; private always-inline
// functions left without uses are erased, as MLIR's inliner does.
// RUN: gpuc-opt %s --split-input-file -p inline | FileCheck %s

// A chain: the kernel ends up holding every body; the callees are gone.
// CHECK-LABEL: gpuc.func @chain(%x: f32) kernel {
// CHECK-NEXT:    %y = arith.addf %x, %x : f32
// CHECK-NEXT:    %{{.*}} = arith.mulf %y, %y : f32
// CHECK-NEXT:    gpuc.return
// CHECK-NOT:   @f1
// CHECK-NOT:   @f2
gpuc.func @chain(%x: f32) kernel {
  %r = gpuc.call @f1(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @f1(%x: f32) -> f32 helper always_inline {
  %y = arith.addf %x, %x : f32
  %z = gpuc.call @f2(%y) : (f32) -> f32
  gpuc.return %z : f32
}
gpuc.func private @f2(%x: f32) -> f32 helper always_inline {
  %y = arith.mulf %x, %x : f32
  gpuc.return %y : f32
}

// -----

// no_inline and unmarked callees are never inlined, but their own
// always-inline calls are.
// CHECK-LABEL: gpuc.func @hints(%x: f32) kernel {
// CHECK-NEXT:    gpuc.call @never(%x)
// CHECK-NEXT:    gpuc.call @plain(%x)
// CHECK-LABEL: gpuc.func private @never(%x: f32) -> f32 helper no_inline {
// CHECK-NEXT:    arith.negf
// CHECK-LABEL: gpuc.func private @plain(%x: f32) -> f32 helper {
// CHECK-NEXT:    arith.negf
// CHECK-NOT:   @leaf
gpuc.func @hints(%x: f32) kernel {
  %a = gpuc.call @never(%x) : (f32) -> f32
  %b = gpuc.call @plain(%x) : (f32) -> f32
  gpuc.return
}
gpuc.func private @never(%x: f32) -> f32 helper no_inline {
  %y = gpuc.call @leaf(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @plain(%x: f32) -> f32 helper {
  %y = gpuc.call @leaf(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @leaf(%x: f32) -> f32 helper always_inline {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}

// -----

// Calls nested in scf regions are inlined too.
// CHECK-LABEL: gpuc.func @nested(%x: f32, %c: i1) kernel {
// CHECK-NEXT:    scf.if %c {
// CHECK:           scf.for
// CHECK-NEXT:        arith.negf %x : f32
// CHECK-NEXT:      }
// CHECK-NOT:     gpuc.call
gpuc.func @nested(%x: f32, %c: i1) kernel {
  scf.if %c {
    %lb = arith.constant 0 : index
    %ub = arith.constant 4 : index
    %st = arith.constant 1 : index
    scf.for %i = %lb to %ub step %st {
      %y = gpuc.call @leaf(%x) : (f32) -> f32
    }
  }
  gpuc.return
}
gpuc.func private @leaf(%x: f32) -> f32 helper always_inline {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}

// -----

// A callee of several blocks, called from the function's own region: the
// caller's block is split, each gpuc.return branches to the continuation.
// CHECK-LABEL: gpuc.func @split(%x: f32, %c: i1, %p: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    cf.br ^[[ENTRY:.*]](%x, %c : f32, i1)
// CHECK-NEXT:  ^[[ENTRY]](%[[X:.*]]: f32, %[[C:.*]]: i1):
// CHECK-NEXT:    cf.cond_br %[[C]], ^[[NEG:.*]], ^[[ID:.*]]
// CHECK-NEXT:  ^[[NEG]]:
// CHECK-NEXT:    %[[Y:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:    cf.br ^[[CONT:.*]](%[[Y]] : f32)
// CHECK-NEXT:  ^[[ID]]:
// CHECK-NEXT:    cf.br ^[[CONT]](%[[X]] : f32)
// CHECK-NEXT:  ^[[CONT]](%r: f32):
// CHECK-NEXT:    gpuc.store %r, %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.return
gpuc.func @split(%x: f32, %c: i1, %p: !gpuc.ptr<f32, global>) kernel {
  %r = gpuc.call @branchy(%x, %c) : (f32, i1) -> f32
  gpuc.store %r, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @branchy(%x: f32, %c: i1) -> f32 helper always_inline {
  cf.cond_br %c, ^neg, ^id
^neg:
  %y = arith.negf %x : f32
  gpuc.return %y : f32
^id:
  gpuc.return %x : f32
}

// -----

// The same callee inside scf.if, whose region must keep one block: its
// blocks go into an scf.execute_region, each gpuc.return becomes scf.yield.
// CHECK-LABEL: gpuc.func @region(%x: f32, %c: i1, %p: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    scf.if %c {
// CHECK-NEXT:      %r = scf.execute_region -> (f32) {
// CHECK-NEXT:        cf.cond_br %c, ^[[NEG:.*]], ^[[ID:.*]]
// CHECK-NEXT:      ^[[NEG]]:
// CHECK-NEXT:        %[[Y:.*]] = arith.negf %x : f32
// CHECK-NEXT:        scf.yield %[[Y]] : f32
// CHECK-NEXT:      ^[[ID]]:
// CHECK-NEXT:        scf.yield %x : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      gpuc.store %r, %p : !gpuc.ptr<f32, global>
gpuc.func @region(%x: f32, %c: i1, %p: !gpuc.ptr<f32, global>) kernel {
  scf.if %c {
    %r = gpuc.call @branchy(%x, %c) : (f32, i1) -> f32
    gpuc.store %r, %p : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
gpuc.func private @branchy(%x: f32, %c: i1) -> f32 helper always_inline {
  cf.cond_br %c, ^neg, ^id
^neg:
  %y = arith.negf %x : f32
  gpuc.return %y : f32
^id:
  gpuc.return %x : f32
}

// -----

// An always-inline function that stays referenced otherwise (public, or
// whose address is taken) is kept, and flattened itself.
// CHECK-LABEL: gpuc.func @kept(%x: f32) kernel {
// CHECK-NEXT:    arith.negf
// CHECK-NEXT:    arith.negf
// CHECK-NEXT:    gpuc.func_addr @addr_taken
// CHECK-LABEL: gpuc.func @public_ai(%x: f32) -> f32 helper always_inline {
// CHECK-NEXT:    arith.negf
// CHECK-LABEL: gpuc.func private @addr_taken(%x: f32) -> f32 helper always_inline {
// CHECK-NEXT:    arith.negf
// CHECK-NOT:   @leaf
gpuc.func @kept(%x: f32) kernel {
  %a = gpuc.call @public_ai(%x) : (f32) -> f32
  %b = gpuc.call @addr_taken(%x) : (f32) -> f32
  %f = gpuc.func_addr @addr_taken : !gpuc.funcptr<(f32) -> f32>
  gpuc.return
}
gpuc.func @public_ai(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @leaf(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @addr_taken(%x: f32) -> f32 helper always_inline {
  %y = gpuc.call @leaf(%x) : (f32) -> f32
  gpuc.return %y : f32
}
gpuc.func private @leaf(%x: f32) -> f32 helper always_inline {
  %y = arith.negf %x : f32
  gpuc.return %y : f32
}
