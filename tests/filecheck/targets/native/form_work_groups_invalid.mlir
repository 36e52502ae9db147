// form-work-groups refuses, located, a barrier that not every thread
// reaches (a split op's control computed from the thread index), a barrier
// kernel with cf branches, and helpers reaching a barrier that recurse or
// have several blocks, before anything is lowered.
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{target=native},classify-entrypoints,finalize-kernels,form-work-groups' | FileCheck %s

// CHECK: 'gpuc.barrier' op is not reached by every thread of the block: the upper bound of the enclosing 'scf.for' depends on the thread index
gpuc.func @bound(%p: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = gpuc.thread_id x
  scf.for %i = %c0 to %t step %c1 {
    gpuc.barrier
  }
  gpuc.return
}

// -----

// CHECK: 'gpuc.barrier' op is in a kernel with unstructured control flow (cf branches), which the native target cannot split at its barriers
gpuc.func @branches(%p: !gpuc.ptr<f32, global>) kernel {
  cf.br ^next
^next:
  gpuc.barrier
  gpuc.return
}

// -----

// CHECK: 'gpuc.call' op calls @down recursively, and @down reaches a barrier: the native target runs each block's barriers in one work-group function, which cannot recurse
gpuc.func private @down(%n: index) helper no_inline {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %more = arith.cmpi ugt, %n, %c0 : index
  scf.if %more {
    gpuc.barrier
    %m = arith.subi %n, %c1 : index
    gpuc.call @down(%m) : (index) -> ()
  }
  gpuc.return
}
gpuc.func @recurses(%n: index) kernel {
  gpuc.call @down(%n) : (index) -> ()
  gpuc.return
}

// -----

// CHECK: 'gpuc.barrier' op is in @blocks, whose body has several blocks (cf branches); the native target splits only structured control flow at barriers
gpuc.func private @blocks() helper no_inline {
  cf.br ^next
^next:
  gpuc.barrier
  gpuc.return
}
gpuc.func @calls_blocks() kernel {
  gpuc.call @blocks() : () -> ()
  gpuc.return
}
