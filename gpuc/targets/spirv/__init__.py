"""The spirv target: SPIR-V for OpenCL through LLVM's SPIR-V back-end.

`target.py` is the target (its hooks), `checks.py` what SPIR-V for OpenCL
cannot say, `plan_printing.py` its dialect pass (which helpers print),
`ir_patches.py` the patches on LLVM IR text for what the back-end
miscompiles, `lines.py` the line tables added to the binary,
`lane_matrices.py` the warp matrix ops spread over a sub-group's lanes,
`isolation.py` code generation in a fresh process. Importing the package
imports none of them (the registry names `target.py`)."""
