"""The `import` pass's machinery, which turns modules from other tools and
frontends (func, gpu, memref; their dialects in gpuc/dialects/foreign, their
text read by gpuc/reader) into gpuc.

Run by gpuc/transforms/import_foreign.py: `checks` (what the import
accepts), `conversion` (functions and gpu.modules into gpuc.func),
`memref_ops` (one function's memref ops into gpuc memory ops) and
`bare_pointers` (memref values as gpuc pointers). Nothing here is imported by
the package itself: a module without foreign ops never loads the conversion
nor xDSL's gpu and memref dialects.
"""
