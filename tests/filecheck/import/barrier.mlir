// gpu.barrier in MLIR 16 to 22 has no memory scopes (no `memfence`): it is
// a work-group barrier that orders workgroup and global memory, which is
// gpuc.barrier. A discardable `address_spaces` attribute, which mlir-opt-22
// accepts and ignores, is ignored as well; an `address_spaces` property
// (no MLIR up to 22 has one) is refused where it is written.
// RUN: gpuc-opt -p import %s | filecheck %s
// RUN: not gpuc-opt -p import %S/Inputs/invalid/barrier_address_spaces.mlir 2>&1 | filecheck %s --check-prefix=PROPERTY

// CHECK-LABEL: gpuc.func @k()
// CHECK-NEXT:    gpuc.barrier
// CHECK-NEXT:    gpuc.barrier
// CHECK-NEXT:    gpuc.return
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> ()}> ({
      "gpu.barrier"() : () -> ()
      "gpu.barrier"() {address_spaces = [#gpu.address_space<global>]} : () -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k"} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

// PROPERTY: barrier_address_spaces.mlir:6:7: error: 'gpu.barrier' op property 'address_spaces' is not defined by the operation 'gpu.barrier'
