"""The names of a translated function's values, given as llvmlite gives
them, faster: llvmlite's name scope takes three Python calls and a
`str.format` per value (a name is registered when a value is made, and again
when it takes its MLIR name: `name_after`), a tenth of translating a module
of thousands of kernels (bench/scale.py). `NameScope` registers in one call
and gives the same names, in the same order."""

from __future__ import annotations

from llvmlite.ir import _utils


class NameScope(_utils.NameScope):  # type: ignore[misc]  # untyped
    """llvmlite's `NameScope.register`, its `deduplicate` and `is_used` inlined:
    a taken name becomes `name.N`, N counted per base name from 1, skipping
    any taken meanwhile."""

    def register(self, name: str, deduplicate: bool = False) -> str:
        used: set[str] = self._useset
        if name in used:
            if not deduplicate:
                raise _utils.DuplicatedNameError(name)
            counts: dict[str, int] = self._basenamemap
            base = name
            while name in used:
                count = counts[base] = counts[base] + 1
                name = f"{base}.{count}"
        used.add(name)
        return name

    @classmethod
    def taking_over(cls, scope: _utils.NameScope) -> NameScope:
        """A scope with `scope`'s names taken and its counts."""
        taken = cls()
        taken._useset = scope._useset  # noqa: SLF001
        taken._basenamemap = scope._basenamemap  # noqa: SLF001
        return taken
