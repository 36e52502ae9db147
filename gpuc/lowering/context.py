"""Translation of a module that has been through the dialect pipeline into
llvmlite IR: the translator registry and the state of one translation.

Each op class maps to one translator function (`translates(Op)` registers it).
The translators of a dialect live in one module of this package, imported the
first time an op of that dialect is met, so a module without `math` ops never
imports xDSL's math dialect. Target specifics come from the `Target` object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any, TypeVar

from llvmlite import ir
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.analysis import ModuleFacts, module_facts
from gpuc.dialects.attrs import FINALIZED_ATTR, AddressSpace, FinalizedAttr, PtrType
from gpuc.dialects.deferred import DeferredOp
from gpuc.dialects.functions import FuncOp
from gpuc.lowering.builder import Builder
from gpuc.lowering.debug_info import LineTables
from gpuc.lowering.printing import Function
from gpuc.lowering.types import lower_type

if TYPE_CHECKING:
    from gpuc.targets.base import Target

Translator = Callable[[Any, "FunctionLowering"], None]
Translators = Mapping[type[Operation], Translator]
TRANSLATORS: dict[type[Operation], Translator] = {}

DIALECT_TRANSLATORS: dict[str, tuple[str, ...]] = {
    "gpuc": (
        "gpuc.lowering.gpuc",
        "gpuc.lowering.memory",
        "gpuc.lowering.private",
        "gpuc.lowering.subgroup",
        "gpuc.lowering.fence",
        "gpuc.lowering.printf",
        "gpuc.lowering.matrix",
    ),
    "arith": ("gpuc.lowering.arith",),
    "math": ("gpuc.lowering.math",),
    "scf": ("gpuc.lowering.scf",),
    "cf": ("gpuc.lowering.cf",),
    "vector": ("gpuc.lowering.vector",),
}
"""Dialect name -> modules whose import registers that dialect's translators."""

OpT = TypeVar("OpT", bound=Operation)


def translates(
    *ops: type[Operation],
) -> Callable[
    [Callable[[OpT, FunctionLowering], None]], Callable[[OpT, FunctionLowering], None]
]:
    """Register the decorated function as the translator of `ops`. What
    `translator_for` returns first gives the instructions the op's source
    location (`FunctionLowering.locate`), however it is called (a target
    translating ops itself, as the native work-group functions do)."""

    def register(
        fn: Callable[[OpT, FunctionLowering], None],
    ) -> Callable[[OpT, FunctionLowering], None]:
        def located(op: OpT, fl: FunctionLowering) -> None:
            if fl.ml.debug is not None:
                fl.locate(op)
            fn(op, fl)

        for op in ops:
            TRANSLATORS[op] = located
        return fn

    return register


def translator_for(op: Operation) -> Translator:
    found = TRANSLATORS.get(type(op))
    if found is None:
        for module in DIALECT_TRANSLATORS.get(op.dialect_name(), ()):
            import_module(module)
        found = TRANSLATORS.get(type(op))
    if found is None:
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        hint = (
            "run the dialect pipeline first (gpuc compile does; with xdsl-opt, "
            "-p gpuc-pipeline)"
            if isinstance(op, DeferredOp)
            else "lower it to gpuc, arith, math, scf or cf first, or register a "
            "translator for it (docs/extending.md)"
        )
        raise OpError(op, f"no translation to LLVM IR is known for '{name}'; {hint}")
    return found


class ModuleLowering:
    """State of translating one module: the llvmlite module, the target and the
    functions by symbol (with any hidden leading parameters the target adds)."""

    def __init__(self, module: ModuleOp, target: Target):
        from gpuc.targets import configured_settings

        settings = configured_settings(module)
        self.module = module
        self.target = target
        self.fp_contract = settings.fp_contract
        """Fuse multiplies and adds (`#gpuc.target`'s fp_contract)."""
        self.llvm = ir.Module(name="gpuc")
        self.llvm.triple = target.triple
        self.funcs: dict[str, FuncOp] = {}
        self.records: dict[str, FinalizedAttr] = {}
        """Kernel -> its finalization record (what the target decided for it)."""
        self.functions: dict[str, ir.Function] = {}
        self.hidden: dict[str, tuple[ir.Type, ...]] = {}
        """Function -> parameter types the target prepends (the native state)."""
        self.index_type = ir.IntType(target.index_bits())
        self.alias_scopes: dict[Any, Any] = {}
        """Address space -> its LLVM alias-scope list, where the target keeps
        shared and global memory apart by scopes (gpuc/lowering/memory.py)."""
        self.debug: LineTables | None = (
            LineTables(self, optimized=settings.opt_level > 0)
            if settings.line_info
            else None
        )
        """The line tables, when `#gpuc.target` asks for them (line_info)."""
        self._types: dict[int, tuple[Attribute, ir.Type]] = {}
        """id of a type attribute -> it (kept alive, so that its id is not
        reused meanwhile) and its LLVM type: a module's values share a few
        type objects, each lowered once."""

    def type(self, attr: Any) -> ir.Type:
        known = self._types.get(id(attr))
        if known is None:
            known = self._types[id(attr)] = (attr, lower_type(attr, self))
        return known[1]

    @cached_property
    def facts(self) -> ModuleFacts:
        """Call-graph facts (state and barrier users, shared-memory layout)."""
        return module_facts(self.module)

    def result_type(self, types: Sequence[Attribute]) -> ir.Type:
        """What a function returning `types` returns in LLVM: void, the one
        value, or a literal struct of several (as reverse-mode derivatives
        return one adjoint per active argument)."""
        if not types:
            return ir.VoidType()
        if len(types) == 1:
            return self.type(types[0])
        return ir.LiteralStructType([self.type(t) for t in types])

    def declare(self, func: FuncOp) -> ir.Function:
        """The llvmlite function of `func`: types, linkage, inlining attributes."""
        signature = func.function_type
        result = self.result_type(signature.outputs.data)
        params = [
            *self.hidden.get(func.sym_name.data, ()),
            *(self.type(t) for t in signature.inputs.data),
        ]
        fnty = ir.FunctionType(result, params)
        record = self.records.get(func.sym_name.data)
        symbol = (
            record.symbol.data
            if record is not None and not record.has_launch_entry
            else self.target.symbol_name(func.sym_name.data)
        )
        fn = Function(self.llvm, fnty, symbol)
        if func.visibility != "public" and not func.is_declaration:
            fn.linkage = "internal"
        name = func.sym_name.data
        if name not in self.records and name in self.facts.barrier:
            # Like the barrier it reaches, a call to it must not be duplicated
            # into, or moved across, divergent control flow.
            fn.attributes.add("convergent")
        hint = func.inline_hint
        if hint is not None:
            fn.attributes.add(
                "alwaysinline" if hint.value == "always_inline" else "noinline"
            )
        if record is not None:
            fn.calling_convention = record.cconv.data
        elif func.is_kernel:
            # A kernel defined elsewhere: declared as that definition is.
            fn.calling_convention = self.target.kernel_cconv
        else:
            fn.calling_convention = self.target.helper_cconv
        self.target.finish_function(self, func, fn)
        return fn

    def intrinsic(
        self,
        name: str,
        result: ir.Type,
        params: Sequence[ir.Type],
        attrs: Iterable[str] = (),
    ) -> ir.Function:
        """Declare (once) an intrinsic or external function."""
        fn = self.llvm.globals.get(name)
        if isinstance(fn, ir.Function):
            return fn
        fn = ir.Function(self.llvm, ir.FunctionType(result, params), name)
        for attr in attrs:
            fn.attributes.add(attr)
        return fn


class StackSlot(ir.instructions.AllocaInstr):  # type: ignore[misc]  # untyped
    """An alloca in address space `space` (llvmlite spells none)."""

    def __init__(self, parent: ir.Block, typ: ir.Type, space: int, name: str):
        super().__init__(parent, typ, None, name)
        self.type = ir.PointerType(addrspace=space)
        self.space = space

    def descr(self, buf: list[str]) -> None:
        super().descr(buf)
        if self.space:
            buf.append(f", addrspace({self.space})")


class FunctionLowering:
    """State of translating one function body: the builder, SSA values and blocks."""

    def __init__(self, ml: ModuleLowering, func: FuncOp, fn: ir.Function):
        self.ml = ml
        self.target = ml.target
        self.func = func
        self.fn = fn
        hidden = len(ml.hidden.get(func.sym_name.data, ()))
        self.hidden_args: tuple[ir.Value, ...] = tuple(fn.args[:hidden])
        self.values: dict[SSAValue, ir.Value] = {}
        self.blocks: dict[Block, ir.Block] = {}
        self.builder = Builder()
        self._allocas: ir.IRBuilder | None = None

    def type(self, attr: Any) -> ir.Type:
        return self.ml.type(attr)

    def get(self, value: SSAValue) -> ir.Value:
        return self.values[value]

    def operands(self, op: Operation) -> list[ir.Value]:
        return [self.values[v] for v in op.operands]

    def set(self, op: Operation, *results: ir.Value) -> None:
        values = self.values
        for result, value in zip(op.results, results, strict=True):
            values[result] = value  # `bind`, inlined: one call per op result
            name_after(value, result)

    def bind(self, ssa: SSAValue, value: ir.Value) -> None:
        """`ssa` is `value` from now on; an unnamed LLVM value takes its name."""
        self.values[ssa] = value
        name_after(value, ssa)

    def alloca(
        self, ty: ir.Type, name: str = "", zeroed: bool = False, align: int = 0
    ) -> ir.Value:
        """A stack slot of `ty` at the start of the entry block (where
        mem2reg/SROA look for them), an opaque pointer in the target's stack
        address space (`Target.alloca_address_space`); `zeroed`: stored zero
        there too. The builder keeps its position (an index into its block,
        moved past what is inserted before it)."""
        entry = self.fn.entry_basic_block
        slot = StackSlot(entry, ty, self.target.alloca_address_space, name)
        if align:
            slot.align = align
        inserted: list[ir.Instruction] = [slot]
        if zeroed:
            zero = ir.instructions.StoreInstr(entry, ir.Constant(ty, None), slot)
            zero.align = None  # what IRBuilder.store sets
            inserted.append(zero)
        entry.instructions[0:0] = inserted
        if self.builder.block is entry:
            self.builder._anchor += len(inserted)  # noqa: SLF001
        return slot

    def translate_ops(self, block: Block, *, skip_terminator: bool = False) -> None:
        """Translate `block`'s ops at the builder's position (translators
        leave the dialect-level module as it is)."""
        last = block.last_op if skip_terminator else None
        outer = self.builder.debug_metadata
        translators = TRANSLATORS
        for op in block.ops:
            if op is last:
                break
            (translators.get(type(op)) or translator_for(op))(op, self)
        # The rest of an enclosing op's instructions are that op's.
        self.builder.debug_metadata = outer

    def locate(self, op: Operation) -> None:
        """Give the instructions built from now on `op`'s source location
        (with line tables; an op without one keeps the enclosing op's). Not
        where a target translates `func`'s ops into another function (the
        native launch entry's thread bounds): its lines are not theirs."""
        debug = self.ml.debug
        if (
            debug is not None
            and debug.names.get(self.fn.name) == self.func.sym_name.data
        ):
            found = debug.location(op.location, self.func.sym_name.data)
            if found is not None:
                self.builder.debug_metadata = found

    def branch(self, target: Block, args: Sequence[ir.Value]) -> None:
        """Branch to `target`, feeding its block arguments (phis)."""
        dest = self.blocks[target]
        for phi, value in zip(dest.instructions, args, strict=False):
            phi.add_incoming(value, self.builder.block)
        self.builder.branch(dest)

    def translate_body(self) -> None:
        """The function's CFG, its entry block's arguments bound to the parameters."""
        entry = self.func.body.blocks.first
        assert entry is not None
        hidden = len(self.hidden_args)
        for arg, value in zip(entry.args, self.fn.args[hidden:], strict=True):
            self.bind(arg, value)
        self.builder.position_at_end(self.declare_blocks(self.func.body, "entry", "bb"))
        if self.func.is_kernel:
            for arg in entry.args:
                if (
                    isinstance(arg.type, PtrType)
                    and arg.type.address_space is AddressSpace.SHARED
                ):
                    self.values[arg] = self.target.shared_parameter(
                        self, self.values[arg]
                    )
        self.translate_blocks(self.func.body)

    def declare_blocks(self, region: Region, entry_name: str, name: str) -> ir.Block:
        """One LLVM block per block of `region`, a phi per argument of every block
        but the entry; returns the entry's LLVM block."""
        for i, block in enumerate(region.blocks):
            bb = self.fn.append_basic_block(f"{name}{i}" if i else entry_name)
            self.blocks[block] = bb
            if i:
                phis = ir.IRBuilder(bb)
                for arg in block.args:
                    self.bind(arg, phis.phi(self.type(arg.type)))
        entry = region.blocks.first
        assert entry is not None
        return self.blocks[entry]

    def translate_blocks(
        self, region: Region, exits: Translators | None = None
    ) -> None:
        """Translate the blocks of `region` (declared first) in reverse
        post-order, so definitions come first; unreachable ones get
        `unreachable`. `exits` translates the terminators that leave the region
        (`scf.yield` of a multi-block `scf.execute_region`), by op class."""
        entry = region.blocks.first
        assert entry is not None
        reached = reverse_post_order(entry)
        for block in reached:
            self.builder.position_at_end(self.blocks[block])
            terminator = block.last_op
            leave = exits.get(type(terminator)) if exits and terminator else None
            self.translate_ops(block, skip_terminator=leave is not None)
            if leave is not None:
                assert terminator is not None
                outer = self.builder.debug_metadata
                self.locate(terminator)
                leave(terminator, self)
                self.builder.debug_metadata = outer
        for block in region.blocks:
            if block not in reached:
                self.builder.position_at_end(self.blocks[block])
                self.builder.unreachable()


def name_after(value: ir.Value, ssa: SSAValue) -> None:
    """Give an unnamed LLVM value the MLIR value's name (`%x` stays `%x`)."""
    hint = ssa.name_hint
    if hint and isinstance(value, ir.NamedValue):
        name = value.name
        if not name or name[0] == ".":
            value.name = hint


def reverse_post_order(entry: Block) -> list[Block]:
    """Blocks reachable from `entry`, each after its dominators."""
    order: list[Block] = []
    seen: set[Block] = {entry}
    stack: list[tuple[Block, int]] = [(entry, 0)]
    while stack:
        block, i = stack.pop()
        term = block.last_op
        succs = term.successors if term is not None else ()
        if i < len(succs):
            stack.append((block, i + 1))
            succ = succs[i]
            if succ not in seen:
                seen.add(succ)
                stack.append((succ, 0))
        else:
            order.append(block)
    order.reverse()
    return order


def translate_module(module: ModuleOp, target: Target) -> ir.Module:
    """The llvmlite module of `module` for `target`, after the dialect pipeline
    (which verified it for the target and finalized its kernels), as its
    `#gpuc.target` says: fp_contract, and with line_info, line tables from
    the ops' locations (opt_level says whether LLVM will optimize, for the
    debugger)."""
    ml = ModuleLowering(module, target)
    funcs: list[FuncOp] = []
    for op in module.ops:
        if not isinstance(op, FuncOp):
            raise OpError(
                op,
                "only gpuc.func may appear at the top level of a module "
                "being lowered; convert other ops with the import pass",
            )
        ml.funcs[op.sym_name.data] = op
        funcs.append(op)
        record = op.attributes.get(FINALIZED_ATTR)
        if isinstance(record, FinalizedAttr):
            ml.records[op.sym_name.data] = record
        elif op.is_kernel and not op.is_declaration:
            raise OpError(
                op,
                f"kernel @{op.sym_name.data} has no finalization record "
                f"('{FINALIZED_ATTR}'); run the dialect pipeline first (gpuc "
                "compile does; with xdsl-opt, -p gpuc-pipeline or finalize-kernels)",
            )
    target.prepare_module(ml)
    for func in funcs:
        ml.functions[func.sym_name.data] = ml.declare(func)
        if ml.debug is not None and not func.is_declaration:
            ml.debug.function(func, ml.functions[func.sym_name.data])
    for func in funcs:
        if not func.is_declaration:
            target.function_lowering(
                ml, func, ml.functions[func.sym_name.data]
            ).translate_body()
    target.finish_module(ml)
    if ml.debug is not None:
        ml.debug.finish()
        ml.debug = None  # it refers back to ml: reference counting frees both
    return ml.llvm
