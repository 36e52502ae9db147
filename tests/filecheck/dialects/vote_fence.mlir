// Round trip of the votes, the ballots of both widths, the reduction kinds
// beyond MLIR 16's (unsigned and NaN-propagating), and the fences at every
// scope and ordering.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @votes(%p: i1) kernel {
// CHECK-NEXT:    %any = gpuc.vote any %p
// CHECK-NEXT:    %all = gpuc.vote all %p
// CHECK-NEXT:    %b = gpuc.ballot %p : i32
// CHECK-NEXT:    %w = gpuc.ballot %p : i64
// GENERIC: "gpuc.vote"(%p) <{kind = #gpuc<vote_kind any>}> : (i1) -> i1
// GENERIC: "gpuc.ballot"(%p) : (i1) -> i64
gpuc.func @votes(%p: i1) kernel {
  %any = gpuc.vote any %p
  %all = gpuc.vote all %p
  %b = gpuc.ballot %p : i32
  %w = gpuc.ballot %p : i64
  gpuc.return
}

// CHECK-LABEL: gpuc.func @kinds(%i: i64, %x: f32) kernel {
// CHECK-NEXT:    %a = gpuc.subgroup_reduce umin %i : i64
// CHECK-NEXT:    %b = gpuc.subgroup_reduce umax %i : i64
// CHECK-NEXT:    %c = gpuc.subgroup_reduce minimum %x : f32
// CHECK-NEXT:    %d = gpuc.subgroup_reduce maximum %x : f32
gpuc.func @kinds(%i: i64, %x: f32) kernel {
  %a = gpuc.subgroup_reduce umin %i : i64
  %b = gpuc.subgroup_reduce umax %i : i64
  %c = gpuc.subgroup_reduce minimum %x : f32
  %d = gpuc.subgroup_reduce maximum %x : f32
  gpuc.return
}

// CHECK-LABEL: gpuc.func @fences() helper {
// CHECK-NEXT:    gpuc.fence block acquire
// CHECK-NEXT:    gpuc.fence device release
// CHECK-NEXT:    gpuc.fence system acq_rel
// CHECK-NEXT:    gpuc.fence device seq_cst
// GENERIC: "gpuc.fence"() <{scope = #gpuc<fence_scope block>, ordering = #gpuc<memory_order acquire>}> : () -> ()
gpuc.func @fences() helper {
  gpuc.fence block acquire
  gpuc.fence device release
  gpuc.fence system acq_rel
  gpuc.fence device seq_cst
  gpuc.return
}
