"""The xDSL context gpuc parses with: only the dialects it needs, loaded lazily."""

from __future__ import annotations

from xdsl.context import Context

from gpuc.registry import DIALECTS, lazy


def make_context(*, allow_unregistered: bool = False) -> Context:
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, path in DIALECTS.items():
        ctx.register_dialect(name, lazy(path))
    return ctx
