"""The dialects other tools print and xDSL lacks (or has only in part), so
their modules parse: MLIR's `gpu` (`gpu`, `gpu_printf`, `mma`), `memref`,
`vector`, `arith` on vectors, `affine`, `amdgpu` buffer ops, the `llvm`
types and the SPIR-V ABI attributes. gpuc/registry.py registers each by its
dialect name, loaded only when a module names it. The `import` pass
(gpuc/transforms/import_foreign.py) turns their ops into gpuc's.
"""
