// The other reasons explain gives: requests deduplicated by the job table,
// always_inline on the job rather than the function, a kernel job whose
// address is taken, an explicit export, a public helper privatized, a job
// from a library with the library symbol it links along, and a declaration.
// RUN: gpuc explain %s -O0 --export exported --library %S/Inputs/library.mlir | FileCheck %s
// RUN: gpuc explain %s -O0 --export exported --library %S/Inputs/library.mlir --format json | FileCheck %s --check-prefix=JSON

gpuc.func @main(%x: f32, %p: !gpuc.ptr<f32, global>) kernel {
  %a = gpuc.deferred_call @twice(%x) #gpuc.job<helper, always_inline> : (f32) -> f32
  %b = gpuc.deferred_call @twice(%a) #gpuc.job<helper, always_inline> : (f32) -> f32
  %c = gpuc.deferred_call @lib_square(%b) #gpuc.job<helper, no_inline> : (f32) -> f32
  %f = gpuc.deferred_addr @worker #gpuc.job<kernel>
      : !gpuc.funcptr<(!gpuc.ptr<f32, global>) -> ()>
  %d = gpuc.call @exported(%c) : (f32) -> f32
  %e = gpuc.call @public_helper(%d) : (f32) -> f32
  %s = gpuc.call @sqrtf(%e) : (f32) -> f32
  gpuc.store %s, %p : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @twice(%x: f32) -> f32 helper {
  %y = arith.addf %x, %x : f32
  gpuc.return %y : f32
}
gpuc.func private @worker(%p: !gpuc.ptr<f32, global>) helper {
  gpuc.return
}
gpuc.func @exported(%x: f32) -> f32 helper no_inline {
  gpuc.return %x : f32
}
gpuc.func @public_helper(%x: f32) -> f32 helper no_inline {
  gpuc.return %x : f32
}
gpuc.func @unused(%x: f32) -> f32 helper {
  gpuc.return %x : f32
}
gpuc.func private @sqrtf(f32) -> f32 helper

// CHECK-LABEL: @main: entrypoint: kernel of the module
// CHECK-LABEL: @twice: removed by symbol-dce: no references
// CHECK-NEXT:    origin: the module, at {{.*}}jobs.mlir:20:1
// CHECK-NEXT:    job source of: @twice.helper.always_inline
// CHECK-LABEL: @worker: removed by symbol-dce: no references
// CHECK-LABEL: @exported: entrypoint: explicit export
// CHECK-NEXT:    origin: the module, at {{.*}}jobs.mlir:27:1
// CHECK-NEXT:    visibility: public: in the entrypoint set (explicit export)
// CHECK-NEXT:    kept: public: in the entrypoint set
// CHECK-NEXT:    artefact: PTX .visible .func exported
// CHECK-LABEL: @public_helper: private helper, kept: called by @main
// CHECK-NEXT:    origin: the module, at {{.*}}jobs.mlir:30:1
// CHECK-NEXT:    visibility: private: made private by privatize (was public; not in the entrypoint set)
// CHECK-NEXT:    kept: called by @main
// CHECK-NEXT:    artefact: PTX .func public_helper (internal: no .visible)
// CHECK-LABEL: @unused: removed by symbol-dce: no references
// CHECK-NEXT:    origin: the module, at {{.*}}jobs.mlir:33:1
// CHECK-NEXT:    visibility: private: made private by privatize (was public; not in the entrypoint set)
// CHECK-NEXT:    removed: by symbol-dce: no references
// CHECK-LABEL: @sqrtf: private declaration, kept: called by @main
// CHECK-NEXT:    origin: the module, at {{.*}}jobs.mlir:36:1
// CHECK-NEXT:    visibility: private: a declaration (defined elsewhere)
// CHECK-LABEL: @twice.helper.always_inline: inlined into @main, then removed by inline: no references left after inlining
// CHECK-NEXT:    origin: job @twice #gpuc.job<helper, always_inline>: a copy of @twice from the module
// CHECK-NEXT:    requested by: gpuc.deferred_call in @main at {{.*}}jobs.mlir:9:8
// CHECK-NEXT:    deduplicated: gpuc.deferred_call in @main at {{.*}}jobs.mlir:10:8 (the job table's answer)
// CHECK-NEXT:    visibility: private: resolve-deferred materializes a helper job private
// CHECK-NEXT:    inlined: into @main (2 calls): always_inline on the job (#gpuc.job<helper, always_inline>)
// CHECK-LABEL: @lib_square.helper.no_inline: private helper, kept: called by @main
// CHECK-NEXT:    origin: job @lib_square #gpuc.job<helper, no_inline>: a copy of @lib_square from library {{.*}}Inputs/library.mlir
// CHECK-NEXT:    requested by: gpuc.deferred_call in @main at {{.*}}jobs.mlir:11:8
// CHECK-LABEL: @lib_mul: private helper, kept: called by @lib_square.helper.no_inline
// CHECK-NEXT:    origin: linked from library {{.*}}Inputs/library.mlir (a job's function references it)
// CHECK-NEXT:    visibility: private: linked library symbols are private
// CHECK-NEXT:    kept: called by @lib_square.helper.no_inline
// CHECK-NEXT:    artefact: PTX .func lib_mul (internal: no .visible)
// CHECK-LABEL: @worker.kernel: entrypoint: kernel job whose address @main takes
// CHECK-NEXT:    origin: job @worker #gpuc.job<kernel>: a copy of @worker from the module
// CHECK-NEXT:    requested by: gpuc.deferred_addr in @main at {{.*}}jobs.mlir:12:8
// CHECK-NEXT:    visibility: public: in the entrypoint set (kernel job whose address @main takes)
// CHECK-NEXT:    kept: public: in the entrypoint set
// CHECK-NEXT:    artefact: PTX .visible .entry worker_$_kernel

// JSON:       "entrypoints": [
// JSON-NEXT:    "main",
// JSON-NEXT:    "exported",
// JSON-NEXT:    "worker.kernel"
// JSON-NEXT:  ],
// JSON-LABEL: "name": "exported",
// JSON:       "entrypoint_kind": "export",
// JSON-LABEL: "name": "twice.helper.always_inline",
// JSON:       "requests": [
// JSON:         "deduplicated": false
// JSON:         "location": "{{.*}}jobs.mlir:10:8",
// JSON:         "deduplicated": true
// JSON:       "inlined_into": {
// JSON-NEXT:    "main": 2
// JSON-NEXT:  },
// JSON-LABEL: "name": "lib_mul",
// JSON-NEXT:  "summary": "private helper, kept: called by @lib_square.helper.no_inline",
// JSON-NEXT:  "origin": {
// JSON-NEXT:    "kind": "linked",
// JSON-LABEL: "name": "worker.kernel",
// JSON:       "entrypoint_kind": "kernel_job",
// JSON:       "referenced_by": {
// JSON-NEXT:    "main": "address taken"
// JSON-NEXT:  },
