"""The lowering's diagnostic for what is not about one op (a diagnostic about
one op is `gpuc.diagnostics.OpError`, located at the op)."""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException


class LoweringError(DiagnosticException):
    """The lowering, LLVM or a target's tool could not finish."""
