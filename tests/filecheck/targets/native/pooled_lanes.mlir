// A lane loop that pools a regrouped shared add (`_poolable`: every lane of a
// row adds into acc[ty * 8 + j]) stores each lane's value in the pool's row
// for the iteration (pools.py); the rows of 8 iterations are summed together
// by a transpose-add tree (shuffles and vector adds, no horizontal reduce per
// iteration). The lane loop is marked llvm.loop.unroll.disable and
// vectorize.width 16: LLVM's loop vectorizer then runs its 16 lanes as one
// vector iteration (a row is one vector store), where the fully unrolled
// lanes were vectorized by SLP in pieces of 8, 4, 2 and 1 joined by shuffles;
// the pooling loop is marked unroll.full (and vectorize.width 1: vectorized
// across lanes, not iterations), so where its trip count is known the pool's
// rows have constant places and stay in registers.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @rows(ptr %state, ptr %in, ptr %out)
// CHECK: %pool = alloca [8 x [16 x float]], align 64
// CHECK: lane.head.1:
// CHECK: br label %lane.head.1, !llvm.loop [[LANES:![0-9]+]]
// CHECK: shufflevector <16 x float>
// CHECK: fadd reassoc nsz <16 x float>
// CHECK-NOT: llvm.vector.reduce.fadd
// CHECK: br label %steps.head, !llvm.loop [[STEPS:![0-9]+]]
// CHECK-DAG: [[LANES]] = distinct !{[[LANES]], [[NOUNROLL:![0-9]+]], [[LANES16:![0-9]+]]}
// CHECK-DAG: [[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
// CHECK-DAG: [[LANES16]] = !{!"llvm.loop.vectorize.width", i32 16}
// CHECK-DAG: [[STEPS]] = distinct !{[[STEPS]], [[WIDTH:![0-9]+]], [[FULL:![0-9]+]]}
// CHECK-DAG: [[WIDTH]] = !{!"llvm.loop.vectorize.width", i32 1}
// CHECK-DAG: [[FULL]] = !{!"llvm.loop.unroll.full"}
gpuc.func @rows(%in: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %tile = gpuc.shared_alloc 64 : !gpuc.ptr<f32, shared>
  %acc = gpuc.shared_alloc 32 : !gpuc.ptr<f32, shared>
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %bx = gpuc.block_id x
  %row = arith.muli %ty, %c32 : index
  %slot = arith.addi %row, %tx : index
  %base = arith.muli %bx, %c64 : index
  %g = arith.addi %base, %slot : index
  %v = gpuc.load %in[%g] : !gpuc.ptr<f32, global>
  %ty8 = arith.muli %ty, %c8 : index
  gpuc.store %v, %tile[%slot] : !gpuc.ptr<f32, shared>
  gpuc.barrier
  scf.for %j = %c0 to %c8 step %c1 {
    %t = gpuc.load %tile[%slot] : !gpuc.ptr<f32, shared>
    %k = arith.addi %ty8, %j : index
    %old = gpuc.atomic_rmw add %acc[%k], %t {gpuc.regrouped} : !gpuc.ptr<f32, shared>
  }
  gpuc.barrier
  %s = gpuc.load %acc[%slot] : !gpuc.ptr<f32, shared>
  gpuc.store %s, %out[%g] : !gpuc.ptr<f32, global>
  gpuc.return
}
