"""Where a job's function comes from: the module, then libraries, then
generators (docs/architecture.md, "The three mechanisms").

A job that names a generator is made by that generator, which receives the
source's definition when the module or a library has one. Any other job takes
the first definition found: in the symbol table of the deferred op, in each
library in order, then from the first generator (by name) that accepts it.
A declaration is not a definition. A function taken from a library brings the
library symbols it references along, under their own names (linking): a
module definition wins over the library's, and a module declaration is
replaced by the library's definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Operation

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import TARGET_ATTR, TargetAttr
from gpuc.dialects.deferred import DeferredOp
from gpuc.dialects.functions import FuncOp, fmt_types
from gpuc.dialects.symbols import build_table, nearest_table
from gpuc.generators import Generator, GeneratorError, GeneratorRequest, Generators
from gpuc.libraries import Library
from gpuc.transforms.job_table import Job
from gpuc.transforms.symbol_uses import held_refs, op_name


@dataclass(frozen=True)
class Found:
    """A job's function, ready to copy, and where it was found."""

    func: FuncOp
    origin: str
    library: Library | None = None
    generated: bool = False
    generator: str | None = None
    """The generator that made it (when `generated`)."""


def _definition(table: Mapping[str, Operation], name: str) -> FuncOp | None:
    found = table.get(name)
    return found if isinstance(found, FuncOp) and not found.is_declaration else None


class JobSources:
    """Finds the function of a job: the module, libraries, then generators."""

    def __init__(self, libraries: Sequence[Library], generators: Generators):
        self.libraries = list(libraries)
        self.generators = generators
        self._library_tables = [build_table(lib.module) for lib in self.libraries]
        self._library_places = [
            {name: i for i, name in enumerate(table)} for table in self._library_tables
        ]

    def find(
        self,
        job: Job,
        op: Operation,
        signature: FunctionType,
        local: Mapping[str, Operation] | None = None,
    ) -> Found:
        """The function of `job`, asked for by `op`. `local`: the symbols of
        `op`'s symbol table (`build_table`) where the caller keeps them."""
        if local is None:
            table_op = nearest_table(op)
            assert table_op is not None
            local = build_table(table_op)
        source = local.get(job.source)
        if source is not None and not isinstance(source, FuncOp):
            raise OpError(
                op,
                f"job source @{job.source} is a '{op_name(source)}', not a gpuc.func; "
                "a job compiles a gpuc.func (the import pass turns func.func into one)",
            )
        found = self._definition(job.source, local)
        named = job.config.generator_name
        if named is not None:
            made = self._generate(job, op, signature, named, found)
            if made is None:
                raise OpError(op, _declined(job, named, found))
            return made
        if found is not None:
            return found
        for name in self.generators.names():
            made = self._generate(job, op, signature, name, None)
            if made is not None:
                return made
        raise OpError(op, self._not_found(job, source))

    def dependencies(self, found: Found) -> list[Operation]:
        """The library symbols `found.func` references, transitively, in library
        order. The library's symbols and their order are collected once, so a
        job costs what it references, not the size of its library."""
        if found.library is None:
            return []
        index = self.libraries.index(found.library)
        table, place = self._library_tables[index], self._library_places[index]
        names = referenced_symbols(found.func, table)
        return [table[name] for name in sorted(names, key=place.__getitem__)]

    def _definition(
        self, name: str, local: Mapping[str, Operation] | None = None
    ) -> Found | None:
        if local is not None and (func := _definition(local, name)) is not None:
            return Found(func, "the module")
        for lib, table in zip(self.libraries, self._library_tables, strict=True):
            if (func := _definition(table, name)) is not None:
                return Found(func, f"library {lib.name}", lib)
        return None

    def _not_found(self, job: Job, local: Operation | None) -> str:
        in_module = "only declared" if local is not None else "not defined"
        libs = ", ".join(lib.name for lib in self.libraries) or "none given"
        gens = ", ".join(self.generators.names()) or "none"
        return (
            f"job source @{job.source} not found: looked in the module ({in_module}), "
            f"in the libraries ({libs}) and asked the generators ({gens}, none made "
            "it); define it, or pass a library that defines it"
        )

    def _generate(
        self,
        job: Job,
        op: Operation,
        signature: FunctionType,
        name: str,
        found: Found | None,
    ) -> Found | None:
        """What generator `name` makes for `job`: None if it declines."""
        try:
            generator: Generator = self.generators.get(name)
        except GeneratorError as e:
            raise OpError(op, str(e)) from None
        request = GeneratorRequest(
            job.source, job.config, signature, found.func if found else None
        )
        try:
            func = generator.generate(request)
        except OpError as e:
            # A generator that cannot handle an op of the source says so at it.
            raise OpError(
                e.op, f"generator '{name}' on job {job.describe()}: {e.message}"
            ) from None
        except Exception as e:
            raise OpError(
                op,
                f"generator '{name}' failed on job {job.describe()}: "
                f"{type(e).__name__}: {e}",
            ) from None
        if func is None:
            return None
        problem = _ill_formed(func, signature)
        if problem is not None:
            raise OpError(
                op,
                f"generator '{name}' returned an ill-formed function for job "
                f"{job.describe()}: {problem}",
            )
        return Found(func, f"generator '{name}'", generated=True, generator=name)


def _declined(job: Job, name: str, found: Found | None) -> str:
    why = (
        ""
        if found is not None
        else (f" (no definition of @{job.source} is in the module or the libraries)")
    )
    return (
        f"generator '{name}' declined job {job.describe()}{why}; define "
        f"@{job.source} or use another generator"
    )


def _ill_formed(func: object, signature: FunctionType) -> str | None:
    if not isinstance(func, FuncOp):
        return f"a {type(func).__name__}, not a gpuc.func"
    if func.is_declaration:
        return "a declaration without a body"
    if func.parent is not None:
        return "an op already inside some block (return a new one)"
    if func.function_type != signature:
        return f"its type {func.function_type} differs from the requested {signature}"
    return None


def check_target(table_op: Operation, found: Found, op: Operation) -> None:
    """A library made for another target cannot serve this module."""
    if found.library is None:
        return
    theirs = found.library.module.attributes.get(TARGET_ATTR)
    ours = table_op.attributes.get(TARGET_ATTR)
    if (
        isinstance(theirs, TargetAttr)
        and isinstance(ours, TargetAttr)
        and theirs.target_name != ours.target_name
    ):
        raise OpError(
            op,
            f"job source @{found.func.sym_name.data} comes from {found.origin}, "
            f"made for target '{theirs.target_name}', but this module is for "
            f"'{ours.target_name}'",
        )


def referenced_symbols(func: Operation, table: Mapping[str, Operation]) -> set[str]:
    """The symbols of `table` that `func` references, transitively. A deferred
    op's source is a job of its own, not a reference to link."""
    seen: set[str] = set()
    stack: list[Operation] = [func]
    while stack:
        for nested in stack.pop().walk():
            if isinstance(nested, DeferredOp):
                continue
            for ref in held_refs(nested):
                name = ref.root_reference.data
                dep = table.get(name)
                if dep is not None and name not in seen:
                    seen.add(name)
                    stack.append(dep)
    return seen


def signature_problem(
    actual: FunctionType, expected: FunctionType, source: str
) -> str | None:
    """Why a deferred op of type `actual` cannot use job source `source` of type
    `expected`, if it cannot."""
    name = source
    if actual.inputs != expected.inputs:
        return (
            f"operand types {fmt_types(actual.inputs.data)} differ from "
            f"job source @{name}'s parameter types {fmt_types(expected.inputs.data)}"
        )
    if actual.outputs != expected.outputs:
        return (
            f"result types {fmt_types(actual.outputs.data)} differ from "
            f"job source @{name}'s result types {fmt_types(expected.outputs.data)}"
        )
    return None
