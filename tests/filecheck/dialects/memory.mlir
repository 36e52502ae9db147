// Round trip of the pointer ops: load, store, offset, shared_alloc, atomic_rmw
// (every kind and ordering), atomic_cmpxchg and addrspace_cast.
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpuc.func @load_store_offset(%p: !gpuc.ptr<f32, global>, %c: !gpuc.ptr<i32, constant>, %l: !gpuc.ptr<f64, local>, %i: index) kernel {
// CHECK-NEXT:    %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %v0 = gpuc.load %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %k = gpuc.load %c[%i] {nontemporal} : !gpuc.ptr<i32, constant>
// CHECK-NEXT:    %d = gpuc.load %l : !gpuc.ptr<f64, local>
// CHECK-NEXT:    gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.store %v0, %p : !gpuc.ptr<f32, global>
// CHECK-NEXT:    gpuc.store %d, %l {volatile} : !gpuc.ptr<f64, local>
// CHECK-NEXT:    %q = gpuc.offset %p[%i] : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %cq = gpuc.offset %c[%i] {inbounds} : !gpuc.ptr<i32, constant>
// CHECK-NEXT:    gpuc.return
// GENERIC:       %v = "gpuc.load"(%p, %i) : (!gpuc.ptr<f32, global>, index) -> f32
// GENERIC:       %v0 = "gpuc.load"(%p) : (!gpuc.ptr<f32, global>) -> f32
// GENERIC:       "gpuc.store"(%v, %p, %i) : (f32, !gpuc.ptr<f32, global>, index) -> ()
// GENERIC:       %q = "gpuc.offset"(%p, %i) : (!gpuc.ptr<f32, global>, index) -> !gpuc.ptr<f32, global>
gpuc.func @load_store_offset(%p: !gpuc.ptr<f32, global>, %c: !gpuc.ptr<i32, constant>, %l: !gpuc.ptr<f64, local>, %i: index) kernel {
  %v = gpuc.load %p[%i] : !gpuc.ptr<f32, global>
  %v0 = gpuc.load %p : !gpuc.ptr<f32, global>
  %k = gpuc.load %c[%i] {nontemporal} : !gpuc.ptr<i32, constant>
  %d = gpuc.load %l : !gpuc.ptr<f64, local>
  gpuc.store %v, %p[%i] : !gpuc.ptr<f32, global>
  gpuc.store %v0, %p : !gpuc.ptr<f32, global>
  gpuc.store %d, %l {volatile} : !gpuc.ptr<f64, local>
  %q = gpuc.offset %p[%i] : !gpuc.ptr<f32, global>
  %cq = gpuc.offset %c[%i] {inbounds} : !gpuc.ptr<i32, constant>
  gpuc.return
}

// Pointers to pointers, vectors and function pointers are pointers too.
// CHECK-LABEL: gpuc.func @nested_pointees(%pp: !gpuc.ptr<!gpuc.ptr<f32, global>, generic>, %vp: !gpuc.ptr<vector<4xf32>, global>, %fpp: !gpuc.ptr<!gpuc.funcptr<(i32) -> i32>, global>) kernel {
// CHECK-NEXT:    %p = gpuc.load %pp : !gpuc.ptr<!gpuc.ptr<f32, global>, generic>
// CHECK-NEXT:    %v = gpuc.load %vp : !gpuc.ptr<vector<4xf32>, global>
// CHECK-NEXT:    %f = gpuc.load %fpp : !gpuc.ptr<!gpuc.funcptr<(i32) -> i32>, global>
gpuc.func @nested_pointees(%pp: !gpuc.ptr<!gpuc.ptr<f32, global>, generic>, %vp: !gpuc.ptr<vector<4xf32>, global>, %fpp: !gpuc.ptr<!gpuc.funcptr<(i32) -> i32>, global>) kernel {
  %p = gpuc.load %pp : !gpuc.ptr<!gpuc.ptr<f32, global>, generic>
  %v = gpuc.load %vp : !gpuc.ptr<vector<4xf32>, global>
  %f = gpuc.load %fpp : !gpuc.ptr<!gpuc.funcptr<(i32) -> i32>, global>
  gpuc.return
}

// CHECK-LABEL: gpuc.func @shared() kernel {
// CHECK-NEXT:    %s = gpuc.shared_alloc 256 : !gpuc.ptr<f32, shared>
// CHECK-NEXT:    %t = gpuc.shared_alloc 1 align 16 : !gpuc.ptr<vector<4xf32>, shared>
// CHECK-NEXT:    %u = gpuc.shared_alloc 32 align 1 {tag} : !gpuc.ptr<i8, shared>
// GENERIC:       %s = "gpuc.shared_alloc"() <{count = 256 : i64}> : () -> !gpuc.ptr<f32, shared>
// GENERIC:       %t = "gpuc.shared_alloc"() <{count = 1 : i64, alignment = 16 : i64}> : () -> !gpuc.ptr<vector<4xf32>, shared>
gpuc.func @shared() kernel {
  %s = gpuc.shared_alloc 256 : !gpuc.ptr<f32, shared>
  %t = gpuc.shared_alloc 1 align 16 : !gpuc.ptr<vector<4xf32>, shared>
  %u = gpuc.shared_alloc 32 align 1 {tag} : !gpuc.ptr<i8, shared>
  gpuc.return
}

// Every read-modify-write kind on integers; the float kinds on floats; every
// ordering (relaxed is the default: printed only when written).
// CHECK-LABEL: gpuc.func @atomics(%p: !gpuc.ptr<i32, global>, %s: !gpuc.ptr<i64, shared>, %g: !gpuc.ptr<i32, generic>, %f: !gpuc.ptr<f32, global>, %h: !gpuc.ptr<f16, shared>, %i: index, %v: i32, %w: i64, %x: f32, %y: f16) kernel {
// CHECK-NEXT:    %0 = gpuc.atomic_rmw add %p[%i], %v : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %1 = gpuc.atomic_rmw min %p, %v : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %2 = gpuc.atomic_rmw max %s[%i], %w : !gpuc.ptr<i64, shared>
// CHECK-NEXT:    %3 = gpuc.atomic_rmw umin %g, %v : !gpuc.ptr<i32, generic>
// CHECK-NEXT:    %4 = gpuc.atomic_rmw umax %g, %v : !gpuc.ptr<i32, generic>
// CHECK-NEXT:    %5 = gpuc.atomic_rmw exchange %p, %v : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %6 = gpuc.atomic_rmw and %p, %v acquire : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %7 = gpuc.atomic_rmw or %s, %w release : !gpuc.ptr<i64, shared>
// CHECK-NEXT:    %8 = gpuc.atomic_rmw xor %p, %v acq_rel : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %9 = gpuc.atomic_rmw add %p, %v seq_cst {tag} : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %10 = gpuc.atomic_rmw add %f[%i], %x : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %11 = gpuc.atomic_rmw min %f, %x : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %12 = gpuc.atomic_rmw max %h, %y : !gpuc.ptr<f16, shared>
// CHECK-NEXT:    %13 = gpuc.atomic_rmw exchange %f, %x relaxed : !gpuc.ptr<f32, global>
// CHECK-NEXT:    %14 = gpuc.atomic_cmpxchg %p[%i], %v, %v : !gpuc.ptr<i32, global>
// CHECK-NEXT:    %15 = gpuc.atomic_cmpxchg %s, %w, %w seq_cst : !gpuc.ptr<i64, shared>
// CHECK-NEXT:    %16 = gpuc.atomic_cmpxchg %g, %v, %v acquire {tag} : !gpuc.ptr<i32, generic>
// GENERIC:       "gpuc.atomic_rmw"(%p, %i, %v) <{kind = #gpuc<atomic_kind add>}> : (!gpuc.ptr<i32, global>, index, i32) -> i32
// GENERIC:       "gpuc.atomic_rmw"(%p, %v) <{kind = #gpuc<atomic_kind and>, ordering = #gpuc<memory_order acquire>}> : (!gpuc.ptr<i32, global>, i32) -> i32
// GENERIC:       "gpuc.atomic_cmpxchg"(%p, %i, %v, %v) : (!gpuc.ptr<i32, global>, index, i32, i32) -> i32
gpuc.func @atomics(%p: !gpuc.ptr<i32, global>, %s: !gpuc.ptr<i64, shared>, %g: !gpuc.ptr<i32, generic>, %f: !gpuc.ptr<f32, global>, %h: !gpuc.ptr<f16, shared>, %i: index, %v: i32, %w: i64, %x: f32, %y: f16) kernel {
  %0 = gpuc.atomic_rmw add %p[%i], %v : !gpuc.ptr<i32, global>
  %1 = gpuc.atomic_rmw min %p, %v : !gpuc.ptr<i32, global>
  %2 = gpuc.atomic_rmw max %s[%i], %w : !gpuc.ptr<i64, shared>
  %3 = gpuc.atomic_rmw umin %g, %v : !gpuc.ptr<i32, generic>
  %4 = gpuc.atomic_rmw umax %g, %v : !gpuc.ptr<i32, generic>
  %5 = gpuc.atomic_rmw exchange %p, %v : !gpuc.ptr<i32, global>
  %6 = gpuc.atomic_rmw and %p, %v acquire : !gpuc.ptr<i32, global>
  %7 = gpuc.atomic_rmw or %s, %w release : !gpuc.ptr<i64, shared>
  %8 = gpuc.atomic_rmw xor %p, %v acq_rel : !gpuc.ptr<i32, global>
  %9 = gpuc.atomic_rmw add %p, %v seq_cst {tag} : !gpuc.ptr<i32, global>
  %10 = gpuc.atomic_rmw add %f[%i], %x : !gpuc.ptr<f32, global>
  %11 = gpuc.atomic_rmw min %f, %x : !gpuc.ptr<f32, global>
  %12 = gpuc.atomic_rmw max %h, %y : !gpuc.ptr<f16, shared>
  %13 = gpuc.atomic_rmw exchange %f, %x relaxed : !gpuc.ptr<f32, global>
  %14 = gpuc.atomic_cmpxchg %p[%i], %v, %v : !gpuc.ptr<i32, global>
  %15 = gpuc.atomic_cmpxchg %s, %w, %w seq_cst : !gpuc.ptr<i64, shared>
  %16 = gpuc.atomic_cmpxchg %g, %v, %v acquire {tag} : !gpuc.ptr<i32, generic>
  gpuc.return
}

// Casts go to or from the generic space.
// CHECK-LABEL: gpuc.func @casts(%p: !gpuc.ptr<f32, global>) kernel {
// CHECK-NEXT:    %s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>
// CHECK-NEXT:    %gs = gpuc.addrspace_cast %s : !gpuc.ptr<f32, shared> to !gpuc.ptr<f32, generic>
// CHECK-NEXT:    %gp = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, generic>
// CHECK-NEXT:    %back = gpuc.addrspace_cast %gp {tag} : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, global>
// CHECK-NEXT:    %l = gpuc.addrspace_cast %gs : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, local>
// CHECK-NEXT:    %c = gpuc.addrspace_cast %gs : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, constant>
// GENERIC:       %gs = "gpuc.addrspace_cast"(%s) : (!gpuc.ptr<f32, shared>) -> !gpuc.ptr<f32, generic>
gpuc.func @casts(%p: !gpuc.ptr<f32, global>) kernel {
  %s = gpuc.shared_alloc 4 : !gpuc.ptr<f32, shared>
  %gs = gpuc.addrspace_cast %s : !gpuc.ptr<f32, shared> to !gpuc.ptr<f32, generic>
  %gp = gpuc.addrspace_cast %p : !gpuc.ptr<f32, global> to !gpuc.ptr<f32, generic>
  %back = gpuc.addrspace_cast %gp {tag} : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, global>
  %l = gpuc.addrspace_cast %gs : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, local>
  %c = gpuc.addrspace_cast %gs : !gpuc.ptr<f32, generic> to !gpuc.ptr<f32, constant>
  gpuc.return
}
