"""Kernels written in Python (docs/python.md): `@gpuc.kernel`, `@gpuc.func`,
the dtypes, `gpuc.Array`, and the functions a kernel calls. A frontend in
the sense of docs/frontends.md: it parses the function's source with `ast`,
emits a module in standard dialects (func, gpu, memref, scf, arith, math,
cf) and hands it to the driver, whose `import` pass reads it as it reads any
other xDSL frontend's.
"""
