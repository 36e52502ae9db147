"""The `llvm` dialect's types and attributes (xDSL's), without its ops, so
that host code around gpu.modules which mentions them parses: a host
function taking `!llvm.ptr` or carrying `llvm.linkage = #llvm.linkage<...>`
(what Polygeist and MLIR's C interface emit). The import drops host code;
in device code, a value of an llvm type is a diagnostic (checks.py) and an
llvm op an unknown op.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.ir import Dialect

LLVMTypes = Dialect("llvm", [], list(llvm.LLVM.attributes))
