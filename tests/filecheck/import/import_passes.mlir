// RUN: gpuc compile %s --target native --emit mlir --no-cache --print-ir-after-all -o /dev/null 2>&1 | filecheck %s
// RUN: gpuc compile %s --target native --emit mlir --no-cache --gpu-module host_kernel --print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=SELECT

// `import` is its passes in the pipeline's list, and --print-ir-after-all
// shows the module after each: the affine op expanded, the mapped loop nest
// made a gpu.launch, the launch outlined into a gpu.module, then the
// functions converted. gpuc's reader upgraded the module as it read it, so
// the driver's list has no upgrade-foreign; a named gpu.module is
// select-gpu-module, right after outlining.

"func.func"() <{function_type = (memref<64xf32>, memref<64xf32>) -> (), sym_name = "host"}> ({
^bb0(%m: memref<64xf32>, %o: memref<64xf32>):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  "scf.parallel"(%c0, %c0, %c8, %c8, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb1(%i: index, %j: index):
    %k = "affine.apply"(%i, %j) <{map = affine_map<(d0, d1) -> (d0 * 8 + d1)>}> : (index, index) -> index
    %v = "memref.load"(%m, %k) : (memref<64xf32>, index) -> f32
    "memref.store"(%v, %o, %k) : (f32, memref<64xf32>, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index, index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// CHECK-LABEL: IR Dump After attach-target
// CHECK:         affine.apply
// CHECK-NOT:   IR Dump After upgrade-foreign
// CHECK-LABEL: IR Dump After expand-affine
// CHECK-NOT:     affine.apply
// CHECK:         %[[T:.*]] = arith.muli %i, %{{.*}} : index
// CHECK-NEXT:    %k = arith.addi %[[T]], %j : index
// CHECK:         scf.reduce
// CHECK-LABEL: IR Dump After convert-parallel-loops-to-gpu
// CHECK-NOT:     scf.parallel
// CHECK:         "gpu.launch"
// CHECK-LABEL: IR Dump After gpu-kernel-outlining
// CHECK:         "gpu.launch_func"{{.*}}kernel = @host_kernel::@host_kernel
// CHECK:         "gpu.module"() <{sym_name = "host_kernel"}>
// CHECK:         "gpu.func"
// CHECK-LABEL: IR Dump After unroll-vectors
// CHECK:         "gpu.func"
// CHECK-LABEL: IR Dump After convert-foreign-to-gpuc
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpuc.func @host_kernel(%m: !gpuc.ptr<f32, global>, %o: !gpuc.ptr<f32, global>) kernel
// CHECK-NOT:     func.func @host
// CHECK-LABEL: IR Dump After resolve-deferred

// SELECT-LABEL: IR Dump After gpu-kernel-outlining
// SELECT-LABEL: IR Dump After select-gpu-module
// SELECT:         "gpu.module"() <{sym_name = "host_kernel"}>
// SELECT-LABEL: IR Dump After unroll-vectors
