// The seed's first scenario (examples/deferred_inline.mlir, GPUCompiler.jl
// PR #928): a wrapper that a generator makes always-inline is inlined into
// its kernel and then removed, so the artefact holds the kernel alone.
// RUN: gpuc explain %s | FileCheck %s
// RUN: gpuc explain %s --format json | FileCheck %s --check-prefix=JSON
// RUN: gpuc explain %s --target spirv poly.helper.mock_autodiff.always_inline @k | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc explain -O0 %s poly.helper | FileCheck %s --check-prefix=O0

// CHECK-LABEL: @k: entrypoint: kernel of the module
// CHECK-NEXT:    origin: the module, at {{.*}}always_inline_wrapper.mlir:[[# @LINE + 39]]:1
// CHECK-NEXT:    visibility: public: in the entrypoint set (kernel of the module)
// CHECK-NEXT:    kept: public: in the entrypoint set
// CHECK-NEXT:    artefact: PTX .visible .entry k{{$}}

// CHECK-LABEL: @poly: removed by symbol-dce: no references
// CHECK-NEXT:    origin: the module, at {{.*}}always_inline_wrapper.mlir:[[# @LINE + 47]]:1
// CHECK-NEXT:    job source of: @poly.helper.mock_autodiff.always_inline, @poly.helper
// CHECK-NEXT:    visibility: private: declared private in the module
// CHECK-NEXT:    removed: by symbol-dce: no references
// CHECK-NEXT:    artefact: none: removed by symbol-dce before lowering

// CHECK-LABEL: @poly.helper.mock_autodiff.always_inline: inlined into @k, then removed by inline: no references left after inlining
// CHECK-NEXT:    origin: generator 'mock_autodiff' (always_inline = true), for job @poly #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}>
// CHECK-NEXT:    requested by: gpuc.deferred_call in @k at {{.*}}always_inline_wrapper.mlir:[[# @LINE + 31]]:10
// CHECK-NEXT:    visibility: private: resolve-deferred materializes a helper job private
// CHECK-NEXT:    inlined: into @k (1 call): always_inline on the function, set by generator 'mock_autodiff'
// CHECK-NEXT:    removed: by inline: no references left after inlining
// CHECK-NEXT:    artefact: none: removed by inline before lowering

// The wrapped function's own job is a plain helper, which the kernel calls
// once the wrapper is inlined: its only call site, so at O1 and above
// `inline` inlines it too (as LLVM would) and erases it.
// CHECK-LABEL: @poly.helper: inlined into @k, then removed by inline: no references left after inlining into its only caller (single call site)
// CHECK-NEXT:    origin: job @poly #gpuc.job<helper>: a copy of @poly from the module
// CHECK-NEXT:    requested by: gpuc.deferred_call in @poly.helper.mock_autodiff.always_inline (no location)
// CHECK-NEXT:    visibility: private: resolve-deferred materializes a helper job private
// CHECK-NEXT:    inlined: into @k (1 call): its only call site: a private helper called once, inlined at opt_level >= 1 as LLVM's inliner would
// CHECK-NEXT:    removed: by inline: no references left after inlining into its only caller (single call site)
// CHECK-NEXT:    artefact: none: removed by inline before lowering

// At O0 LLVM inlines nothing, and neither does `inline` but for
// always_inline: the helper stays a call, and a .func in the PTX.
// O0-LABEL: @poly.helper: private helper, kept: called by @k
// O0-NEXT:    origin: job @poly #gpuc.job<helper>: a copy of @poly from the module
// O0-NEXT:    requested by: gpuc.deferred_call in @poly.helper.mock_autodiff.always_inline (no location)
// O0-NEXT:    visibility: private: resolve-deferred materializes a helper job private
// O0-NEXT:    kept: called by @k
// O0-NEXT:    artefact: PTX .func poly_$_helper (internal: no .visible)
gpuc.func @k(%x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<f32, global>, %n: i32) kernel {
  %i = gpuc.global_id x
  %n_index = arith.index_cast %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_index : index
  scf.if %in_range {
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %r = gpuc.deferred_call @poly(%v)
        #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}>
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

// JSON:       "schema": "gpuc-explain/1",
// JSON-NEXT:  "target": "ptx{sm=90}",
// JSON-NEXT:  "artefact_format": "ptx",
// JSON-NEXT:  "entrypoints": [
// JSON-NEXT:    "k"
// JSON-NEXT:  ],
// JSON-LABEL: "name": "poly.helper.mock_autodiff.always_inline",
// JSON-NEXT:  "summary": "inlined into @k, then removed by inline: no references left after inlining",
// JSON-NEXT:  "origin": {
// JSON-NEXT:    "kind": "generator",
// JSON-NEXT:    "location": null,
// JSON-NEXT:    "source": "poly",
// JSON-NEXT:    "job": "#gpuc.job<helper, generator = \"mock_autodiff\" {always_inline = true}>",
// JSON-NEXT:    "generator": "mock_autodiff",
// JSON-NEXT:    "params": {
// JSON-NEXT:      "always_inline": "true"
// JSON-NEXT:    },
// JSON:       "requests": [
// JSON-NEXT:    {
// JSON-NEXT:      "op": "gpuc.deferred_call",
// JSON-NEXT:      "location": "{{.*}}always_inline_wrapper.mlir:55:10",
// JSON-NEXT:      "requester": "k",
// JSON-NEXT:      "job": "@poly #gpuc.job<helper, generator = \"mock_autodiff\" {always_inline = true}>",
// JSON-NEXT:      "deduplicated": false
// JSON-NEXT:    }
// JSON-NEXT:  ],
// JSON:       "visibility": null,
// JSON:       "inlined_into": {
// JSON-NEXT:    "k": 1
// JSON-NEXT:  },
// JSON-NEXT:  "inline_why": "always_inline on the function, set by generator 'mock_autodiff'",
// JSON-NEXT:  "status": "removed",
// JSON-NEXT:  "removed_by": "inline",
// JSON-NEXT:  "why": "no references left after inlining",
// JSON:       "artefact": null,
// JSON-LABEL: "name": "poly.helper",
// JSON-NEXT:  "summary": "inlined into @k, then removed by inline: no references left after inlining into its only caller (single call site)",
// JSON:       "inlined_into": {
// JSON-NEXT:    "k": 1
// JSON-NEXT:  },
// JSON-NEXT:  "inline_why": "its only call site: a private helper called once, inlined at opt_level >= 1 as LLVM's inliner would",
// JSON-NEXT:  "status": "removed",
// JSON-NEXT:  "removed_by": "inline",
// JSON-NEXT:  "why": "no references left after inlining into its only caller (single call site)",
// JSON-NEXT:  "referenced_by": {},

// SPIR-V: the kernel is the module's one OpFunction, an entry point.
// SPIRV-LABEL: @poly.helper.mock_autodiff.always_inline: inlined into @k, then removed by inline
// SPIRV-LABEL: @k: entrypoint: kernel of the module
// SPIRV:         artefact: SPIR-V OpFunction %k (OpEntryPoint Kernel, no linkage decoration)
