"""Modules from other tools and frontends (func, gpu, memref), and the `import`
pass's machinery that turns them into gpuc.

Reading: `text` (parse other tools' MLIR text and upgrade MLIR's spellings),
`gpu_dialect` (xDSL's gpu dialect plus what MLIR prints and it lacks).
Importing, run by gpuc/transforms/import_foreign.py: `checks` (what the import
accepts), `conversion` (functions and gpu.modules into gpuc.func),
`memref_ops` (one function's memref ops into gpuc memory ops) and
`bare_pointers` (memref values as gpuc pointers). Nothing here is imported by
the package itself: a module without foreign ops never loads the conversion
nor xDSL's gpu and memref dialects.
"""
