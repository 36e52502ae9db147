// Round trip of the index and synchronization ops, in every dimension, in a
// gpuc.func, a func.func and nested in scf regions.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @ids() kernel {
// CHECK-NEXT:    %tx = gpuc.thread_id x
// CHECK-NEXT:    %ty = gpuc.thread_id y
// CHECK-NEXT:    %tz = gpuc.thread_id z
// CHECK-NEXT:    %bx = gpuc.block_id x
// CHECK-NEXT:    %by = gpuc.block_id y
// CHECK-NEXT:    %bz = gpuc.block_id z
// CHECK-NEXT:    %dx = gpuc.block_dim x
// CHECK-NEXT:    %dy = gpuc.block_dim y
// CHECK-NEXT:    %dz = gpuc.block_dim z
// CHECK-NEXT:    %gx = gpuc.grid_dim x
// CHECK-NEXT:    %gy = gpuc.grid_dim y
// CHECK-NEXT:    %gz = gpuc.grid_dim z
// CHECK-NEXT:    %ix = gpuc.global_id x
// CHECK-NEXT:    %iy = gpuc.global_id y
// CHECK-NEXT:    %iz = gpuc.global_id z {tag}
// CHECK-NEXT:    %l = gpuc.lane_id
// CHECK-NEXT:    %l2 = gpuc.lane_id {tag}
// CHECK-NEXT:    gpuc.barrier
// CHECK-NEXT:    gpuc.barrier {tag}
// CHECK-NEXT:    gpuc.return
// GENERIC:       %tx = "gpuc.thread_id"() <{dimension = #gpuc<dim x>}> : () -> index
// GENERIC:       %l = "gpuc.lane_id"() : () -> index
// GENERIC:       "gpuc.barrier"() : () -> ()
gpuc.func @ids() kernel {
  %tx = gpuc.thread_id x
  %ty = gpuc.thread_id y
  %tz = gpuc.thread_id z
  %bx = gpuc.block_id x
  %by = gpuc.block_id y
  %bz = gpuc.block_id z
  %dx = gpuc.block_dim x
  %dy = gpuc.block_dim y
  %dz = gpuc.block_dim z
  %gx = gpuc.grid_dim x
  %gy = gpuc.grid_dim y
  %gz = gpuc.grid_dim z
  %ix = gpuc.global_id x
  %iy = gpuc.global_id y
  %iz = gpuc.global_id z {tag}
  %l = gpuc.lane_id
  %l2 = gpuc.lane_id {tag}
  gpuc.barrier
  gpuc.barrier {tag}
  gpuc.return
}

// Nested regions inside a function count as inside it; func.func too (a
// foreign module before import).
// CHECK-LABEL: func.func @foreign(%n: index) {
// CHECK-NEXT:    %i = gpuc.global_id x
// CHECK-NEXT:    %c = arith.cmpi ult, %i, %n : index
// CHECK-NEXT:    scf.if %c {
// CHECK-NEXT:      gpuc.barrier
// CHECK-NEXT:      %t = gpuc.thread_id x
// CHECK-NEXT:    }
func.func @foreign(%n: index) {
  %i = gpuc.global_id x
  %c = arith.cmpi ult, %i, %n : index
  scf.if %c {
    gpuc.barrier
    %t = gpuc.thread_id x
  }
  func.return
}
