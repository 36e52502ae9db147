"builtin.module"() ({
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, f32, i8) -> ()}> ({
    ^bb0(%arg0: i32, %arg1: f32, %arg2: i8):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      "gpu.printf"(%0, %arg0, %arg1, %arg2) <{format = "t=%lld a=%d f=%f c=%d\0A"}> : (index, i32, f32, i8) -> ()
      "gpu.printf"() <{format = "no values\0A"}> : () -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "hello", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

