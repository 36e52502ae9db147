// Round trip of the subgroup ops: shuffles in every mode, with and without a
// width, on each type they take; reductions of every kind; the subgroup ids.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @shuffles(%x: f32, %i: i32, %l: i64, %d: f64, %o: i32, %w: i32) kernel {
// CHECK-NEXT:    %a, %va = gpuc.shuffle xor %x, %o : f32
// CHECK-NEXT:    %b, %vb = gpuc.shuffle up %i, %o, width %w : i32
// CHECK-NEXT:    %c, %vc = gpuc.shuffle down %l, %o : i64
// CHECK-NEXT:    %e, %ve = gpuc.shuffle idx %d, %o, width %w : f64
// GENERIC: "gpuc.shuffle"(%x, %o) <{mode = #gpuc<shuffle_mode xor>}> : (f32, i32) -> (f32, i1)
// GENERIC: "gpuc.shuffle"(%i, %o, %w) <{mode = #gpuc<shuffle_mode up>}> : (i32, i32, i32) -> (i32, i1)
gpuc.func @shuffles(%x: f32, %i: i32, %l: i64, %d: f64, %o: i32, %w: i32) kernel {
  %a, %va = gpuc.shuffle xor %x, %o : f32
  %b, %vb = gpuc.shuffle up %i, %o, width %w : i32
  %c, %vc = gpuc.shuffle down %l, %o : i64
  %e, %ve = gpuc.shuffle idx %d, %o, width %w : f64
  gpuc.return
}

// CHECK-LABEL: gpuc.func @reductions(%x: f32, %i: i64) kernel {
// CHECK-NEXT:    %0 = gpuc.subgroup_reduce add %x : f32
// CHECK-NEXT:    %1 = gpuc.subgroup_reduce mul %x : f32
// CHECK-NEXT:    %2 = gpuc.subgroup_reduce min %x : f32
// CHECK-NEXT:    %3 = gpuc.subgroup_reduce max %i : i64
// CHECK-NEXT:    %4 = gpuc.subgroup_reduce and %i : i64
// CHECK-NEXT:    %5 = gpuc.subgroup_reduce or %i : i64
// CHECK-NEXT:    %6 = gpuc.subgroup_reduce xor %i : i64
// GENERIC: "gpuc.subgroup_reduce"(%x) <{kind = #gpuc<reduce_kind add>}> : (f32) -> f32
gpuc.func @reductions(%x: f32, %i: i64) kernel {
  %0 = gpuc.subgroup_reduce add %x : f32
  %1 = gpuc.subgroup_reduce mul %x : f32
  %2 = gpuc.subgroup_reduce min %x : f32
  %3 = gpuc.subgroup_reduce max %i : i64
  %4 = gpuc.subgroup_reduce and %i : i64
  %5 = gpuc.subgroup_reduce or %i : i64
  %6 = gpuc.subgroup_reduce xor %i : i64
  gpuc.return
}

// CHECK-LABEL: gpuc.func @ids() kernel {
// CHECK-NEXT:    %s = gpuc.subgroup_id
// CHECK-NEXT:    %n = gpuc.subgroup_size
// CHECK-NEXT:    %m = gpuc.num_subgroups
gpuc.func @ids() kernel {
  %s = gpuc.subgroup_id
  %n = gpuc.subgroup_size
  %m = gpuc.num_subgroups
  gpuc.return
}
