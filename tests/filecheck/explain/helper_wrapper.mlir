// The seed's second scenario: the same generated wrapper without the
// generator's always_inline flag is a private helper of its own, kept while
// the kernel calls it. At -O0 LLVM keeps it too: a PTX .func without
// .visible, a SPIR-V OpFunction without a linkage decoration, a LOCAL symbol
// of the native object.
// RUN: gpuc explain %s -O0 | FileCheck %s
// RUN: gpuc explain %s -O0 --format json | FileCheck %s --check-prefix=JSON
// RUN: gpuc explain %s -O0 --target spirv @poly.helper.mock_autodiff | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc explain %s -O0 --target native @poly.helper.mock_autodiff @k | FileCheck %s --check-prefix=NATIVE

// CHECK-LABEL: @k: entrypoint: kernel of the module
// CHECK:         artefact: PTX .visible .entry k{{$}}
// CHECK-LABEL: @poly: removed by symbol-dce: no references
// CHECK-LABEL: @poly.helper.mock_autodiff: private helper, kept: called by @k
// CHECK-NEXT:    origin: generator 'mock_autodiff', for job @poly #gpuc.job<helper, generator = "mock_autodiff">
// CHECK-NEXT:    requested by: gpuc.deferred_call in @k at {{.*}}helper_wrapper.mlir:[[# @LINE + 20]]:10
// CHECK-NEXT:    visibility: private: resolve-deferred materializes a helper job private
// CHECK-NEXT:    kept: called by @k
// CHECK-NEXT:    artefact: PTX .func poly_$_helper_$_mock_autodiff (internal: no .visible)
// CHECK-LABEL: @poly.helper: private helper, kept: called by @poly.helper.mock_autodiff
// CHECK:         artefact: PTX .func poly_$_helper (internal: no .visible)

// SPIRV-LABEL: @poly.helper.mock_autodiff: private helper, kept: called by @k
// SPIRV:         artefact: SPIR-V OpFunction %poly.helper.mock_autodiff (no linkage decoration)

// NATIVE-LABEL: @poly.helper.mock_autodiff: private helper, kept: called by @k
// NATIVE:         artefact: FUNC symbol poly.helper.mock_autodiff (LOCAL)
// NATIVE-LABEL: @k: entrypoint: kernel of the module
// NATIVE:         artefact: FUNC symbol __gpuc_launch_k (GLOBAL) (the target's launch entry)
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = gpuc.deferred_call @poly(%v)
        #gpuc.job<helper, generator = "mock_autodiff">
        : (f32) -> f32
    gpuc.store %r, %y[%i] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}

gpuc.func private @poly(%v: f32) -> f32 helper {
  %two = arith.constant 2.0 : f32
  %r = arith.mulf %two, %v : f32
  gpuc.return %r : f32
}

// JSON-LABEL: "name": "poly.helper.mock_autodiff",
// JSON-NEXT:  "summary": "private helper, kept: called by @k",
// JSON:       "visibility": "private",
// JSON-NEXT:  "visibility_why": "private: resolve-deferred materializes a helper job private",
// JSON-NEXT:  "entrypoint": null,
// JSON-NEXT:  "entrypoint_kind": null,
// JSON-NEXT:  "inlined_into": {},
// JSON-NEXT:  "inline_why": null,
// JSON-NEXT:  "status": "kept",
// JSON-NEXT:  "removed_by": null,
// JSON-NEXT:  "why": "called by @k",
// JSON-NEXT:  "referenced_by": {
// JSON-NEXT:    "k": "called"
// JSON-NEXT:  },
// JSON-NEXT:  "artefact": {
// JSON-NEXT:    "symbol": "poly_$_helper_$_mock_autodiff",
// JSON-NEXT:    "kind": ".func",
// JSON-NEXT:    "linkage": "internal",
