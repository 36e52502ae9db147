"""`resolve-deferred`: materialize the job of every deferred op and rewrite the
op into its plain counterpart (`gpuc.call`, `gpuc.func_addr`, `gpuc.launch`);
a `gpuc.deferred_kernel` first becomes the kernel it declares
(deferred_kernels.py).

Runs to a fixpoint over a worklist: a materialized body may hold deferred ops
of its own, and self-recursion or cycles (a -> b -> c -> a) end because the
job table answers every job after its first materialization. A job is
materialized once per symbol table, as a copy of its source named after the
job (see `job_table.py`): helper jobs become private `helper` functions,
kernel jobs public `kernel` functions of the module (so of its target). The
job's inline hint, if any, replaces the source's. With `move_sources` (the
pipeline's setting, symbol-dce following), a private source that only its job
references is moved into the job instead of copied: symbol-dce would drop it.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import InlineHintAttr, Role, RoleAttr
from gpuc.dialects.call_graph import CallGraph, call_graph, invalidate_call_graph
from gpuc.dialects.deferred import (
    DEFERRED_OPS,
    DeferredAddrOp,
    DeferredCallOp,
    DeferredKernelOp,
    DeferredOp,
    deferred_ops,
)
from gpuc.dialects.functions import CallOp, FuncAddrOp, FuncOp, LaunchOp, fmt_types
from gpuc.dialects.symbols import (
    build_table,
    is_symbol_table,
    nearest_table,
    symbol_name,
    symbol_ref,
)
from gpuc.dialects.uses import erase_unused, replace_uses
from gpuc.dialects.walk import of_classes, preorder
from gpuc.explain.record import active_recorder
from gpuc.generators import Generator, Generators
from gpuc.libraries import Library, LibrarySource, load_libraries
from gpuc.reader.fast import build_op
from gpuc.transforms.deferred_kernels import expand_deferred_kernels
from gpuc.transforms.job_sources import (
    Found,
    JobSources,
    check_target,
    signature_problem,
)
from gpuc.transforms.job_table import Job, JobTable, job_base_name, unique_name
from gpuc.transforms.resolved_graph import Resolution, keep_call_graph
from gpuc.transforms.symbol_privatize import set_visibility
from gpuc.transforms.symbol_uses import is_private, referenced_names


def _rewrite(op: DeferredOp, symbol: SymbolRefAttr) -> Operation:
    """Replace `op` by the plain op that uses the materialized `symbol` (as
    `Rewriter.replace_op` does, over xDSL's links: a deferred op per call of
    the module)."""
    new: Operation
    if isinstance(op, DeferredCallOp):
        # CallOp(symbol, arguments, types), made field by field as the reader
        # makes ops (`create`'s generic steps: 13 us a call, a call per
        # deferred call of the module).
        new = build_op(
            CallOp,
            op.operands,  # `arguments`, its only group
            op.result_types,
            {"callee": symbol},
        )
    elif isinstance(op, DeferredAddrOp):
        new = FuncAddrOp(symbol, op.signature)
    else:
        shared = op.shared[0] if op.shared else None
        new = LaunchOp(symbol, op.grid, op.block, op.args, shared)
    new.attributes.update(op.attributes)
    new.location = op.location
    block = op.parent
    assert block is not None
    block.insert_op_before(new, op)
    olds = op.results
    if olds:
        for old, result in zip(olds, new.results, strict=True):
            replace_uses(old, result)
        for result in new.results:
            if result.name_hint is None:
                result.name_hint = olds[0].name_hint
    erase_unused(op)
    return new


class _Resolver:
    def __init__(self, sources: JobSources, movable: Collection[str] | None = None):
        self.sources = sources
        self.recorder = active_recorder()
        self.tables: dict[Operation, JobTable] = {}
        self._symbols: dict[Operation, dict[str, Operation]] = {}
        self.worklist: deque[DeferredOp] = deque()
        self.without_deferred: set[FuncOp] = set()
        """The module's functions that hold no deferred op (`run`)."""
        self.movable = movable
        """None: every job copies its source. Else the names never moved (the
        exports); the sources `run` finds referenced once are added to
        `sole_sources`."""
        self.sole_sources: set[FuncOp] = set()
        """Private module functions holding no deferred op whose only reference
        in the module is one deferred op: its job takes the function itself."""
        self.moved: set[str] = set()
        """The names of the sources moved into their jobs: still taken, so
        that job names come out as they do when the source is copied."""
        self.refs: dict[str, SymbolRefAttr] = {}
        """Materialized name -> the reference its deferred ops are rewritten
        to use (one attribute per job, not one per op)."""
        self.signatures: dict[tuple[int, ...], tuple[FunctionType, object]] = {}
        """The ids of a deferred call's operand and result types -> its
        signature (and the types, kept alive so that no id is reused): the
        deferred calls of a module share a few signatures."""
        self.resolution = Resolution()
        """What resolution did, for keeping the call graph true
        (gpuc/transforms/resolved_graph.py)."""

    def symbols(self, table_op: Operation) -> dict[str, Operation]:
        """The symbols of `table_op`, collected once and kept up to date as jobs
        are materialized and linked (collecting them per deferred op made
        resolution quadratic in the module's size)."""
        if table_op not in self._symbols:
            self._symbols[table_op] = build_table(table_op)
        return self._symbols[table_op]

    def run(self, module: ModuleOp) -> None:
        """Resolve every deferred op of `module`. Its call graph is asked
        first (for the deferred calls and how often each symbol is named)
        and kept true through resolution where it can be (`keep_call_graph`),
        else forgotten; it is not asked meanwhile."""
        graph = call_graph(module)
        try:
            self._resolve(module, graph)
        except BaseException:
            invalidate_call_graph(module)
            raise
        if self.recorder is not None or not keep_call_graph(graph, self.resolution):
            invalidate_call_graph(module)

    def _deferred(
        self, module: ModuleOp, graph: CallGraph
    ) -> tuple[list[Operation], Sequence[Operation] | Mapping[str, int]]:
        """The module's deferred ops, in module order (its deferred kernels
        expanded first), and its every op, or (from the graph, where it has
        them: deferred calls only) how many references name each symbol."""
        names = graph.op_names
        if DeferredKernelOp.name not in names and all(
            kind.name not in names
            for kind in DEFERRED_OPS
            if kind is not DeferredCallOp
        ):
            self._symbols[module] = graph.tables[module]  # renamed as it goes
            return list(graph.ops_named(DeferredCallOp.name)), graph.ref_counts
        self.resolution.kept = False
        invalidate_call_graph(module)
        order = preorder(module)
        kernels, found = of_classes(order, (DeferredKernelOp,), DEFERRED_OPS)
        if kernels:
            expand_deferred_kernels(module)
            order = preorder(module)
            found = of_classes(order, DEFERRED_OPS)[0]
        return found, order

    def _resolve(self, module: ModuleOp, graph: CallGraph) -> None:
        if self.recorder is not None:
            self.recorder.input_module(module)
        found, counted = self._deferred(module, graph)
        deferred = cast(list[DeferredOp], found)
        # The module's functions hold no deferred op they did not hold now
        # (resolution only rewrites them away): a copy of one that holds none
        # is not searched for them.
        placed = [_top_level(op, module) for op in deferred]
        holding = {top for top, _ in placed}
        self.without_deferred = {
            op for op in module.ops if isinstance(op, FuncOp) and op not in holding
        }
        if (
            self.movable is not None
            and self.recorder is None
            and not any(nested for _, nested in placed)
        ):
            self.sole_sources = _sole_sources(
                counted,
                deferred,
                self.symbols(module),
                self.without_deferred,
                self.movable,
            )
        self.worklist.extend(deferred)
        while self.worklist:
            op = self.worklist.popleft()
            name = self.symbol_for(op)
            ref = self.refs.get(name)
            if ref is None:
                ref = self.refs[name] = symbol_ref(name)
            self.resolution.rewritten[op] = _rewrite(op, ref)

    def signature(self, op: DeferredOp) -> FunctionType:
        """`op.signature`, made once per signature for deferred calls."""
        if not isinstance(op, DeferredCallOp):
            return op.signature
        types = (op.operand_types, op.result_types)  # `arguments`', `res`'s
        key = (*map(id, types[0]), -1, *map(id, types[1]))
        known = self.signatures.get(key)
        if known is None:
            known = self.signatures[key] = (FunctionType.from_lists(*types), types)
        return known[0]

    def symbol_for(self, op: DeferredOp) -> str:
        table_op = nearest_table(op)
        assert table_op is not None
        job = Job(op.source.root_reference.data, op.job)
        jobs = self.tables.setdefault(table_op, JobTable())
        name: str | None = jobs.lookup(job)
        signature = self.signature(op)
        if name is None:
            found = self.sources.find(job, op, signature, self.symbols(table_op))
            check_target(table_op, found, op)
            self.check(op, job, found.func, f" (found in {found.origin})", signature)
            name = self.materialize(job, found, table_op, op)
            jobs.record(job, name)
            if self.recorder is not None:
                self.recorder.request(op, job.describe(), name, deduplicated=False)
            return name
        func = self.symbols(table_op).get(name)
        assert isinstance(func, FuncOp)
        self.check(op, job, func, "", signature)
        if self.recorder is not None:
            self.recorder.request(op, job.describe(), name, deduplicated=True)
        return name

    def check(
        self,
        op: DeferredOp,
        job: Job,
        func: FuncOp,
        origin: str,
        signature: FunctionType,
    ) -> None:
        outputs = func.function_type.outputs.data
        if job.config.job_role == Role.KERNEL and outputs:
            raise OpError(
                op,
                f"kernel job {job.describe()}: @{job.source}{origin} "
                f"returns {fmt_types(outputs)}, but a kernel returns nothing; write "
                "results through a pointer argument",
            )
        problem = signature_problem(signature, func.function_type, job.source)
        if problem is not None:
            raise OpError(
                op,
                f"{problem}{origin}; make the deferred op's types match the job "
                "source's signature",
            )

    def materialize(
        self, job: Job, found: Found, table_op: Operation, op: DeferredOp
    ) -> str:
        """Insert the job's function into `table_op`; return its name."""
        symbols = self.symbols(table_op)
        moving = found.func in self.sole_sources
        if moving:
            func = found.func
            self.sole_sources.remove(func)  # as the job's, a source of others
            self.moved.add(job.source)
            self.resolution.moves.append((job.source, func))
            del symbols[job.source]
            table_op.regions[0].block.detach_op(func)
        else:
            func = found.func if found.generated else found.func.clone()
            self.resolution.kept = False  # a new function: the graph is redone
        moved = self.moved
        name: str = unique_name(
            job_base_name(job), lambda n: n in symbols or n in moved
        )
        func.sym_name = StringAttr(name)
        func.role = RoleAttr(job.config.job_role)
        set_visibility(
            func, "public" if job.config.job_role == Role.KERNEL else "private"
        )
        hint = job.config.inline_hint or func.inline_hint
        func.inline = InlineHintAttr(hint) if hint is not None else None
        table_op.regions[0].block.add_op(func)
        symbols[name] = func
        if found.generated:
            try:
                func.verify()
            except VerifyException as e:
                table_op.regions[0].block.detach_op(func)
                raise OpError(
                    op,
                    f"{found.origin} returned an ill-formed function for job "
                    f"{job.describe()}: {e}",
                ) from None
        if self.recorder is not None:
            self.recorder.materialized(
                func,
                job.source,
                job.config,
                found.generator,
                job.config.params.data,
                found.library.name if found.library is not None else None,
                hint_from_job=job.config.inline_hint is not None,
            )
        if found.generated or found.func not in self.without_deferred:
            self.worklist.extend(deferred_ops(func))
        for dep in self.link(found, table_op, op):
            self.worklist.extend(deferred_ops(dep))
        return name

    def link(
        self, found: Found, table_op: Operation, op: DeferredOp
    ) -> list[Operation]:
        """Copy the library symbols the job's function references; return them."""
        symbols = self.symbols(table_op)
        copies: list[Operation] = []
        for dep in self.sources.dependencies(found):
            name = symbol_name(dep)
            assert name is not None
            existing = symbols.get(name)
            if existing is not None:
                if not _is_declaration(existing) or _is_declaration(dep):
                    continue  # the module's own definition wins
                _check_declaration(existing, dep, found, op)
            copy = dep.clone()
            self.resolution.kept = False
            set_visibility(copy, "private")
            if existing is not None:
                Rewriter.replace_op(existing, copy)
            else:
                table_op.regions[0].block.add_op(copy)
            symbols[name] = copy
            copies.append(copy)
            if self.recorder is not None and found.library is not None:
                self.recorder.linked(copy, found.library.name, existing is not None)
        return copies


def _sole_sources(
    counted: Sequence[Operation] | Mapping[str, int],
    deferred: Sequence[DeferredOp],
    symbols: dict[str, Operation],
    without_deferred: Collection[FuncOp],
    kept: Collection[str],
) -> set[FuncOp]:
    """The module's private functions, holding no deferred op and not in
    `kept`, that one deferred op of `deferred` names and nothing else in the
    module references (by any symbol reference held by an op of `counted`,
    the module's every op, nested tables included; or `counted` is the
    count by name, as the call graph keeps it). Moving one into its job
    leaves nothing dangling when every job is a copy of a module function
    (no generator makes one, no deferred op sits in a nested symbol table):
    then each later reference to it is a copy of that op, which the job
    table answers. Otherwise none is moved: a generator may derive new
    references from the bodies it is given.
    (`symbols`: the module's; the caller checks that no deferred op sits in a
    nested symbol table.)"""
    if any(op.job.generator_name is not None for op in deferred):
        return set()
    named = Counter(op.source.root_reference.data for op in deferred)
    for name in named:
        source = symbols.get(name)
        if not isinstance(source, FuncOp) or source.is_declaration:
            return set()
    candidates = {
        op.sym_name.data: op
        for op in without_deferred
        if named.get(op.sym_name.data) == 1
        and op.sym_name.data not in kept
        and is_private(op)
    }
    if not candidates:
        return set()
    references = counted if isinstance(counted, Mapping) else referenced_names(counted)
    return {op for name, op in candidates.items() if references.get(name) == 1}


def _top_level(op: Operation, module: ModuleOp) -> tuple[Operation, bool]:
    """The op of `module`'s body that holds `op`, and whether a symbol table
    other than `module` holds it (then its symbols are looked up there)."""
    nested = is_symbol_table(op)
    while (parent := op.parent_op()) is not None and parent is not module:
        op = parent
        nested = nested or is_symbol_table(op)
    return op, nested


def _is_declaration(op: Operation) -> bool:
    return isinstance(op, FuncOp) and op.is_declaration


def _check_declaration(
    declared: Operation, defined: Operation, found: Found, op: Operation
) -> None:
    """A module declaration replaced by a library definition must have its type."""
    assert isinstance(declared, FuncOp)
    theirs = defined.get_attr_or_prop("function_type")
    if theirs != declared.function_type:
        raise OpError(
            op,
            f"@{declared.sym_name.data} is declared in the module as "
            f"{declared.function_type} but {found.origin} defines it as {theirs}; "
            "make the declaration match the library",
        )


def resolve_deferred(
    module: ModuleOp,
    libraries: Sequence[Library] = (),
    generators: Generators | None = None,
    movable: Collection[str] | None = None,
) -> dict[Operation, JobTable]:
    """Resolve every deferred op of `module`; return the job table of each symbol
    table that had deferred ops. `movable`: None, every job copies its source;
    else a private module source that only its job references is moved into
    the job, but for the names in `movable` (which stay). Never with
    libraries: their functions may reference the module's symbols by name."""
    if libraries:
        movable = None
    resolver = _Resolver(JobSources(libraries, generators or Generators()), movable)
    resolver.run(module)
    return resolver.tables


@dataclass(frozen=True)
class ResolveDeferred(ModulePass):
    """Materialize deferred jobs from the module, `libraries` (files), generators
    (`generators`, from Python: by name, ahead of the installed ones)."""

    name = "resolve-deferred"
    preserves_call_graph: ClassVar[bool] = True
    """It keeps the call graph true itself: updated where it only renamed
    and rewrote, else forgotten (gpuc/transforms/resolved_graph.py)."""

    libraries: tuple[LibrarySource, ...] = ()
    generators: tuple[tuple[str, Generator], ...] = ()
    move_sources: bool = False
    """Move a private source that only its job references into the job
    instead of copying it (it is dead after resolution; the pipeline's
    symbol-dce would drop it)."""
    exports: tuple[str, ...] = ()
    """With `move_sources`: symbols never moved (the entrypoint set keeps
    them)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        resolve_deferred(
            op,
            load_libraries(self.libraries, ctx),
            Generators(dict(self.generators)),
            {e.removeprefix("@") for e in self.exports} if self.move_sources else None,
        )
