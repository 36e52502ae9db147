// A vote or ballot that not every thread of the block reaches is refused at
// the collective, as a shuffle is (subgroup_invalid.mlir); a fence is no
// collective, so the same condition around one is accepted.
// RUN: not gpuc-opt %s -t native 2>&1 | FileCheck %s
// RUN: gpuc-opt %S/Inputs/fence_under_condition.mlir -t 'llvm{target=native}' | FileCheck %s --check-prefix=FENCE

// CHECK: vote_fence_invalid.mlir:[[# @LINE + 8]]:10: error: 'gpuc.ballot' op is not reached by every thread of the block: the condition of the enclosing 'scf.if' depends on the thread index
gpuc.func @k(%p: !gpuc.ptr<i32, global>) kernel {
  %t = gpuc.thread_id x
  %c = arith.constant 3 : index
  %lt = arith.cmpi ult, %t, %c : index
  scf.if %lt {
    %x = gpuc.load %p[%t] : !gpuc.ptr<i32, global>
    %q = arith.trunci %x : i32 to i1
    %b = gpuc.ballot %q : i32
    gpuc.store %b, %p[%t] : !gpuc.ptr<i32, global>
  }
  gpuc.return
}

// FENCE: fence seq_cst
