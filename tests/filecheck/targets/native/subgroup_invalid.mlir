// A subgroup collective that not every thread of the block reaches (its
// condition depends on the thread index) is undefined on GPUs (shfl.sync
// with the full mask) and cannot run in a work-group function: a
// diagnostic at the collective, as for a barrier.
// RUN: not gpuc-opt %s -t native 2>&1 | FileCheck %s

// CHECK: subgroup_invalid.mlir:[[# @LINE + 7]]:14: error: 'gpuc.shuffle' op is not reached by every thread of the block: the condition of the enclosing 'scf.if' depends on the thread index
gpuc.func @k(%p: !gpuc.ptr<f32, global>, %o: i32) kernel {
  %t = gpuc.thread_id x
  %c = arith.constant 3 : index
  %lt = arith.cmpi ult, %t, %c : index
  scf.if %lt {
    %x = gpuc.load %p[%t] : !gpuc.ptr<f32, global>
    %r, %v = gpuc.shuffle down %x, %o : f32
    gpuc.store %r, %p[%t] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
