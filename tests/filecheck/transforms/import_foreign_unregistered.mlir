// An unregistered gpu op (gpuc-opt --allow-unregistered-dialect keeps it) is
// still refused by the import, by its own name.
// RUN: gpuc-opt --allow-unregistered-dialect --verify-diagnostics -p import %s | filecheck %s

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = (f32) -> (), kernel}> ({
  ^bb0(%x: f32):
    "gpu.dynamic_shared_memory"() : () -> ()
    "gpu.return"() : () -> ()
  }) {sym_name = "s"} : () -> ()
}) : () -> ()

// CHECK: error: 'builtin.unregistered' op 'gpu.dynamic_shared_memory', cannot be imported in @s; the import accepts gpu.module,
