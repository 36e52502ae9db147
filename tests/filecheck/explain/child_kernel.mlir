// The seed's third scenario (examples/child_launch.mlir): a child kernel
// launched from the device is a kernel job, so an entrypoint of its own
// next to its parent; its source, never referenced, is removed.
// RUN: gpuc explain %s | FileCheck %s
// RUN: gpuc explain %s --format json @double.kernel | FileCheck %s --check-prefix=JSON

// CHECK-LABEL: @parent: entrypoint: kernel of the module
// CHECK:         artefact: PTX .visible .entry parent{{$}}
// CHECK-LABEL: @double: removed by symbol-dce: no references
// CHECK-NEXT:    origin: the module, at {{.*}}child_kernel.mlir:[[# @LINE + 37]]:1
// CHECK-NEXT:    job source of: @double.kernel
// CHECK-LABEL: @double.kernel: entrypoint: kernel job launched from @parent
// CHECK-NEXT:    origin: job @double #gpuc.job<kernel>: a copy of @double from the module
// CHECK-NEXT:    requested by: gpuc.deferred_launch in @parent at {{.*}}child_kernel.mlir:[[# @LINE + 27]]:5
// CHECK-NEXT:    visibility: public: in the entrypoint set (kernel job launched from @parent)
// CHECK-NEXT:    kept: public: in the entrypoint set
// CHECK-NEXT:    artefact: PTX .visible .entry double_$_kernel

// JSON:       "entrypoints": [
// JSON-NEXT:    "parent",
// JSON-NEXT:    "double.kernel"
// JSON-NEXT:  ],
// JSON-LABEL: "name": "double.kernel",
// JSON-NEXT:  "summary": "entrypoint: kernel job launched from @parent",
// JSON:       "role": "kernel",
// JSON:       "op": "gpuc.deferred_launch",
// JSON:       "entrypoint": "kernel job launched from @parent",
// JSON-NEXT:  "entrypoint_kind": "kernel_job",
// JSON:       "referenced_by": {
// JSON-NEXT:    "parent": "launched"
// JSON-NEXT:  },
// JSON-NOT:   "name": "parent"
gpuc.func @parent(%x: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %c0 = arith.constant 0 : index
  %threads = arith.constant 256 : index
  %i = gpuc.global_id x
  %first = arith.cmpi eq, %i, %c0 : index
  scf.if %first {
    %count = arith.index_cast %n : i32 to index
    %blocks = arith.ceildivui %count, %threads : index
    gpuc.deferred_launch @double grid(%blocks) block(%threads) (%x, %n)
        #gpuc.job<kernel> : (!gpuc.ptr<f32, global>, i32)
  }
  gpuc.return
}

gpuc.func private @double(%x: !gpuc.ptr<f32, global>, %n: i32) helper {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = arith.addf %v, %v : f32
    gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
