// gpu.barrier with an `address_spaces` property: no MLIR from 16 to 22
// defines one (mlir-opt-22 refuses it too).
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> ()}> ({
      "gpu.barrier"() <{address_spaces = [#gpu.address_space<workgroup>]}> : () -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k"} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
