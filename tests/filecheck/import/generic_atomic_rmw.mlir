// MLIR's memref.generic_atomic_rmw (generic form: xDSL has no custom syntax
// for it) becomes a compare-exchange loop: read, compute the region's value,
// gpuc.atomic_cmpxchg it in, again while another thread changed the element.
// RUN: gpuc-opt -p import --split-input-file --verify-diagnostics %s | filecheck %s

// CHECK-LABEL: gpuc.func @cas(
// CHECK:         %[[OLD:.*]] = gpuc.load %x[%c0] : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %{{.*}} = scf.while (%[[CUR:.*]] = %[[OLD]]) : (i32) -> i32 {
// CHECK-NEXT:      %[[EQ:.*]] = arith.cmpi eq, %[[CUR]], %e : i32
// CHECK-NEXT:      %[[NEW:.*]] = arith.select %[[EQ]], %d, %[[CUR]] : i32
// CHECK-NEXT:      %[[SEEN:.*]] = gpuc.atomic_cmpxchg %x[%c0], %[[CUR]], %[[NEW]] acq_rel : !gpuc.ptr<i32, global>
// CHECK-NEXT:      %[[RETRY:.*]] = arith.cmpi ne, %[[SEEN]], %[[CUR]] : i32
// CHECK-NEXT:      scf.condition(%[[RETRY]]) %[[SEEN]] : i32
func.func @cas(%x: memref<?xi32>, %e: i32, %d: i32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %old = "memref.generic_atomic_rmw"(%x, %c0) ({
  ^bb0(%cur: i32):
    %eq = arith.cmpi eq, %cur, %e : i32
    %new = arith.select %eq, %d, %cur : i32
    "memref.atomic_yield"(%new) : (i32) -> ()
  }) : (memref<?xi32>, index) -> i32
  func.return
}

// -----

func.func @floats(%x: memref<4xf32>, %v: f32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  // CHECK: error: 'memref.generic_atomic_rmw' op updates f32 elements in @floats; gpuc makes it a compare-exchange loop, which takes i32 and i64 elements
  %old = "memref.generic_atomic_rmw"(%x, %c0) ({
  ^bb0(%cur: f32):
    "memref.atomic_yield"(%v) : (f32) -> ()
  }) : (memref<4xf32>, index) -> f32
  func.return
}
