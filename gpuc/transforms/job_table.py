"""The job table: "was (source, configuration) already materialized, and as
which symbol?" It deduplicates jobs and does nothing else; which symbols stay
visible is the entrypoint set's question, which kernels are finished the
finalization schedule's.

Materialized symbols are named after the job, deterministically and in valid
MLIR bare-identifier syntax: `<source>.<role>[.<inline hint>][.<generator>]`
followed by the generator's parameters (`key` for a true flag, `key_value`
for a number or a word), e.g. `@fma_body.helper.always_inline` or
`@f.helper.mock_autodiff.always_inline`. A name already taken gets `.1`,
`.2`, ... in the order jobs are met.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Attribute

from gpuc.dialects.attrs import JobAttr
from gpuc.generators import flag_value

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


@dataclass(frozen=True)
class Job:
    """A deferred compilation request: a source symbol and a configuration."""

    source: str
    config: JobAttr

    def describe(self) -> str:
        return f"@{self.source} {self.config}"


def _param_part(key: str, value: Attribute) -> str | None:
    flag = flag_value(value)
    if flag is not None:
        return key if flag else None
    if isinstance(value, IntegerAttr):
        return f"{key}_{value.value.data}".replace("-", "m")
    if isinstance(value, StringAttr) and _WORD.fullmatch(value.data):
        return f"{key}_{value.data}"
    return None


def job_base_name(job: Job) -> str:
    """The readable name of `job`'s symbol, before making it unique."""
    config = job.config
    parts = [job.source, config.job_role.value]
    if config.inline_hint is not None:
        parts.append(config.inline_hint.value)
    if config.generator_name is not None:
        parts.append(config.generator_name)
        for key in sorted(config.params.data):
            part = _param_part(key, config.params.data[key])
            if part is not None:
                parts.append(part)
    return ".".join(parts)


def unique_name(base: str, taken: Callable[[str], bool]) -> str:
    """`base`, or `base.N` with the smallest N >= 1 that is not taken."""
    if not taken(base):
        return base
    n = 1
    while taken(f"{base}.{n}"):
        n += 1
    return f"{base}.{n}"


class JobTable:
    """Job -> the symbol it was materialized as, in the order jobs were recorded."""

    def __init__(self) -> None:
        self._symbols: dict[Job, str] = {}

    def lookup(self, job: Job) -> str | None:
        return self._symbols.get(job)

    def record(self, job: Job, symbol: str) -> None:
        if job in self._symbols:
            raise ValueError(f"job {job.describe()} is already materialized")
        self._symbols[job] = symbol

    def __len__(self) -> int:
        return len(self._symbols)

    def __iter__(self) -> Iterator[tuple[Job, str]]:
        return iter(self._symbols.items())
