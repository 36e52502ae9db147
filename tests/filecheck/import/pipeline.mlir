// RUN: gpuc-opt -p 'gpuc-pipeline{target=spirv}' %s | filecheck %s

// `import` is the pipeline's first stage: a frontend's module of standard
// dialects goes through the whole dialect pipeline: only the kernel is an
// entrypoint, so the public but unused helper is privatized and removed; the
// helper called twice stays, private (one called once would be inlined).

"gpu.module"() <{sym_name = "kernels"}> ({
  func.func private @twice(%m: memref<?xf32>, %i: index) {
    %v = memref.load %m[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %m[%i] : memref<?xf32>
    func.return
  }
  func.func @unused(%x: f32) -> f32 {
    func.return %x : f32
  }
  "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
  ^bb0(%m: memref<?xf32>):
    %i = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
    func.call @twice(%m, %i) : (memref<?xf32>, index) -> ()
    func.call @twice(%m, %i) : (memref<?xf32>, index) -> ()
    "gpu.return"() : () -> ()
  }) {sym_name = "double"} : () -> ()
}) : () -> ()

// CHECK:      builtin.module attributes {gpuc.target = #gpuc.target<spirv>, gpuc.entrypoints = [@double]} {
// CHECK-NEXT:   gpuc.func private @twice(%m: !gpuc.ptr<f32, global>, %m_dim0: index, %i: index) helper {
// CHECK-NEXT:     %v = gpuc.load %m[%i] : !gpuc.ptr<f32, global>
// CHECK:        gpuc.func @double(%m: !gpuc.ptr<f32, global>, %m_dim0: index) kernel
// CHECK-NEXT:     %i = gpuc.global_id x
// CHECK-NEXT:     gpuc.call @twice(%m, %m_dim0, %i) : (!gpuc.ptr<f32, global>, index, index) -> ()
// CHECK-NEXT:     gpuc.call @twice(%m, %m_dim0, %i) : (!gpuc.ptr<f32, global>, index, index) -> ()
// CHECK-NOT:  @unused
