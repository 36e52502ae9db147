module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello(%a: i32, %f: f32, %c: i8) kernel {
      %t = gpu.thread_id x
      gpu.printf "t=%lld a=%d f=%f c=%d\n", %t, %a, %f, %c : index, i32, f32, i8
      gpu.printf "no values\n"
      gpu.return
    }
  }
}
