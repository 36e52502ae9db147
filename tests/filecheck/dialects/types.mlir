// Round trip of the gpuc types and attributes on their own: !gpuc.ptr in
// every address space, !gpuc.funcptr, #gpuc.job, and the enum attributes the
// ops keep as properties (#gpuc<space ..>, #gpuc<role ..>, ...).
// RUN: gpuc-opt %s | gpuc-opt | FileCheck %s
// RUN: gpuc-opt %s --print-op-generic | gpuc-opt | FileCheck %s

// CHECK-LABEL: gpuc.func private @spaces(!gpuc.ptr<f32, global>, !gpuc.ptr<f32, shared>, !gpuc.ptr<f32, local>, !gpuc.ptr<f32, constant>, !gpuc.ptr<f32, generic>) helper
gpuc.func private @spaces(!gpuc.ptr<f32, global>, !gpuc.ptr<f32, shared>, !gpuc.ptr<f32, local>, !gpuc.ptr<f32, constant>, !gpuc.ptr<f32, generic>) helper

// CHECK-LABEL: gpuc.func private @pointees(!gpuc.ptr<i1, global>, !gpuc.ptr<i8, global>, !gpuc.ptr<i64, global>, !gpuc.ptr<f16, global>, !gpuc.ptr<bf16, global>, !gpuc.ptr<f64, global>, !gpuc.ptr<index, global>, !gpuc.ptr<vector<2xi32>, global>, !gpuc.ptr<!gpuc.ptr<i8, generic>, global>) helper
gpuc.func private @pointees(!gpuc.ptr<i1, global>, !gpuc.ptr<i8, global>, !gpuc.ptr<i64, global>, !gpuc.ptr<f16, global>, !gpuc.ptr<bf16, global>, !gpuc.ptr<f64, global>, !gpuc.ptr<index, global>, !gpuc.ptr<vector<2xi32>, global>, !gpuc.ptr<!gpuc.ptr<i8, generic>, global>) helper

// CHECK-LABEL: gpuc.func private @funcptrs(!gpuc.funcptr<() -> ()>, !gpuc.funcptr<(f32) -> f32>, !gpuc.funcptr<(i32, !gpuc.ptr<f32, global>) -> (f32, i32)>) -> !gpuc.funcptr<(!gpuc.funcptr<() -> ()>) -> ()> helper
gpuc.func private @funcptrs(!gpuc.funcptr<() -> ()>, !gpuc.funcptr<(f32) -> f32>, !gpuc.funcptr<(i32, !gpuc.ptr<f32, global>) -> (f32, i32)>) -> !gpuc.funcptr<(!gpuc.funcptr<() -> ()>) -> ()> helper

// Every attribute of the dialect, as attribute values.
// CHECK-LABEL: gpuc.func private @attributes() helper attributes {
// CHECK-SAME:    atomic = [#gpuc<atomic_kind add>, #gpuc<atomic_kind min>, #gpuc<atomic_kind max>, #gpuc<atomic_kind umin>, #gpuc<atomic_kind umax>, #gpuc<atomic_kind exchange>, #gpuc<atomic_kind and>, #gpuc<atomic_kind or>, #gpuc<atomic_kind xor>]
// CHECK-SAME:    dims = [#gpuc<dim x>, #gpuc<dim y>, #gpuc<dim z>]
// CHECK-SAME:    hints = [#gpuc<inline always_inline>, #gpuc<inline no_inline>]
// CHECK-SAME:    jobs = [#gpuc.job<kernel>, #gpuc.job<helper>, #gpuc.job<helper, always_inline>, #gpuc.job<kernel, no_inline>, #gpuc.job<helper, generator = "g">, #gpuc.job<helper, no_inline, generator = "g" {a = "b", n = 1 : i64}>]
// CHECK-SAME:    orders = [#gpuc<memory_order relaxed>, #gpuc<memory_order acquire>, #gpuc<memory_order release>, #gpuc<memory_order acq_rel>, #gpuc<memory_order seq_cst>]
// CHECK-SAME:    roles = [#gpuc<role kernel>, #gpuc<role helper>]
// CHECK-SAME:    spaces = [#gpuc<space global>, #gpuc<space shared>, #gpuc<space local>, #gpuc<space constant>, #gpuc<space generic>]
// CHECK-SAME:    types = [!gpuc.ptr<f32, global>, !gpuc.funcptr<(f32) -> f32>]
gpuc.func private @attributes() helper attributes {
  atomic = [#gpuc<atomic_kind add>, #gpuc<atomic_kind min>, #gpuc<atomic_kind max>, #gpuc<atomic_kind umin>, #gpuc<atomic_kind umax>, #gpuc<atomic_kind exchange>, #gpuc<atomic_kind and>, #gpuc<atomic_kind or>, #gpuc<atomic_kind xor>],
  dims = [#gpuc<dim x>, #gpuc<dim y>, #gpuc<dim z>],
  hints = [#gpuc<inline always_inline>, #gpuc<inline no_inline>],
  jobs = [#gpuc.job<kernel>, #gpuc.job<helper>, #gpuc.job<helper, always_inline>, #gpuc.job<kernel, no_inline>, #gpuc.job<helper, generator = "g">, #gpuc.job<helper, no_inline, generator = "g" {a = "b", n = 1 : i64}>],
  orders = [#gpuc<memory_order relaxed>, #gpuc<memory_order acquire>, #gpuc<memory_order release>, #gpuc<memory_order acq_rel>, #gpuc<memory_order seq_cst>],
  roles = [#gpuc<role kernel>, #gpuc<role helper>],
  spaces = [#gpuc<space global>, #gpuc<space shared>, #gpuc<space local>, #gpuc<space constant>, #gpuc<space generic>],
  types = [!gpuc.ptr<f32, global>, !gpuc.funcptr<(f32) -> f32>]
}

// The module attributes the pipeline writes (entrypoint set, target) survive.
// CHECK-LABEL: builtin.module @annotated attributes {gpuc.entrypoints = [@k], gpuc.target = #gpuc.target<ptx, sm = 90>} {
builtin.module @annotated attributes {gpuc.entrypoints = [@k], gpuc.target = #gpuc.target<ptx, sm = 90>} {
  gpuc.func @k() kernel {
    gpuc.return
  }
}
