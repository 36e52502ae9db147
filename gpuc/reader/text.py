"""Module text from other tools: what xDSL 0.74 lacks to read it, and the fix-ups.

xDSL parses `gpu` ops only in generic form and lacks some of what MLIR prints;
`gpuc.dialects.foreign.gpu.GPU` (registered as `gpu`) adds it. `upgrade_foreign_ops`
rewrites in place what MLIR spells differently from xDSL's op definitions, so
a parsed module verifies; `parse_foreign_module` parses and upgrades in one
call. docs/frontends.md lists every difference. The upgrades are looked up by
op name, so a module without gpu or memref ops never imports those dialects
(gpuc-opt and the driver parse every input with `parse_foreign_module`).
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import TYPE_CHECKING, Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.irdl import AttrSizedOperandSegments, AttrSizedResultSegments, IRDLOperation
from xdsl.parser.affine_parser import AffineParser
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRToken

from gpuc.diagnostics import LocatingParser, OpError
from gpuc.dialects.foreign.atomic_kinds import AMBIGUOUS_KINDS

if TYPE_CHECKING:
    from xdsl.dialects import gpu, memref


# MLIR <= 17 spelled the segment sizes in snake case; xDSL keeps them as
# properties under MLIR 18's names.
_SEGMENT_SIZES = (
    ("operand_segment_sizes", AttrSizedOperandSegments),
    ("result_segment_sizes", AttrSizedResultSegments),
)


def _rename_segment_sizes(op: Operation) -> None:
    if not isinstance(op, IRDLOperation):
        return
    for old, option in _SEGMENT_SIZES:
        if old not in op.attributes:
            continue
        for o in op.get_irdl_definition().options:
            if isinstance(o, option) and o.as_property:
                op.properties.setdefault(o.attribute_name, op.attributes.pop(old))


def _widen_launch_segments(op: gpu.LaunchFuncOp | gpu.LaunchOp) -> None:
    """Add the operand groups MLIR 18+ (and xDSL) have and MLIR 16 lacks.

    MLIR 16 orders `gpu.launch_func` operands as async dependencies, grid x3,
    block x3, dynamic shared size, kernel operands; cluster sizes x3 after the
    block sizes and a trailing async object came later (`gpu.launch`: the same
    without kernel operands and async object). All the new groups are empty.
    """
    sizes = op.properties.get("operandSegmentSizes")
    if not isinstance(sizes, DenseArrayBase):
        return
    old = list(sizes.get_values())
    launch_func = op.name == "gpu.launch_func"
    if len(old) == (9 if launch_func else 8):
        old[7:7] = [0, 0, 0]
    if launch_func and len(old) == 12:
        old.append(0)
    op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, old)


def _complete_global(op: memref.GlobalOp) -> None:
    """Fill the properties MLIR leaves out and xDSL requires.

    MLIR omits `sym_visibility` for public globals and `initial_value` for an
    external one; gpuc only imports workgroup globals, whose initial contents
    are undefined either way, so a missing value reads as `uninitialized`.
    """
    if "sym_visibility" not in op.properties:
        op.properties["sym_visibility"] = StringAttr("public")
    if "initial_value" not in op.properties:
        op.properties["initial_value"] = UnitAttr()


_KNOWN_SIZES = ("known_block_size", "known_grid_size")
"""gpu.func's properties since MLIR 19; MLIR 16 and xDSL have the attributes
`gpu.known_block_size` and `gpu.known_grid_size`."""


def _upgrade_gpu_func(op: gpu.FuncOp) -> None:
    """`gpu.kernel` becomes xDSL's `kernel` property; MLIR 19's known-size
    properties become the `gpu.` attributes; attributions become allocas.

    A workgroup or private attribution is an entry-block argument past the
    function's inputs; MLIR allocates it once per block (workgroup) or thread
    (private), which is what a `memref.alloca` in that memory space means.
    """
    from xdsl.dialects import memref

    for key in _KNOWN_SIZES:
        if (size := op.properties.get(key)) is None:
            continue
        known = op.attributes.setdefault(f"gpu.{key}", size)
        if known != size:
            raise OpError(
                op,
                f"has {key} = {size} (MLIR 19 and later's property) and "
                f"gpu.{key} = {known} (MLIR 16's attribute), which disagree; "
                "keep one",
            )
        del op.properties[key]
    if "gpu.kernel" in op.attributes and "kernel" not in op.properties:
        del op.attributes["gpu.kernel"]
        op.properties["kernel"] = UnitAttr()
    op.attributes.pop("workgroup_attributions", None)
    function_type = op.properties.get("function_type")
    entry = op.body.blocks.first
    if not isinstance(function_type, FunctionType) or entry is None:
        return  # nothing to rewrite; the verifier reports what is missing
    inputs = len(function_type.inputs.data)
    attributions = list(entry.args[inputs:])
    if not all(isinstance(arg.type, MemRefType) for arg in attributions):
        return  # not attributions: the verifier reports the mismatch
    first = entry.first_op
    for arg in attributions:
        assert isinstance(arg.type, MemRefType)
        alloca = memref.AllocaOp.get(
            arg.type.element_type,
            shape=arg.type.get_shape(),
            memory_space=arg.type.memory_space,
        )
        if first is not None:
            entry.insert_op_before(alloca, first)
        else:
            entry.add_op(alloca)
        alloca.memref.name_hint = arg.name_hint
        arg.replace_all_uses_with(alloca.memref)
        entry.erase_arg(arg)


def _upgrade_parallel_yield(op: Operation) -> None:
    """MLIR <= 18 ends an `scf.parallel` body with `scf.yield`; later MLIR and
    xDSL with `scf.reduce`."""
    parent = op.parent_op()
    if parent is not None and parent.name == "scf.parallel" and not op.operands:
        from xdsl.dialects import scf

        Rewriter.replace_op(op, scf.ReduceOp())


def _upgrade_shuffle_mask(op: Operation) -> None:
    """MLIR 16 prints `vector.shuffle`'s mask as an array attribute
    (`{mask = [2, 1]}`); xDSL's op takes MLIR 17+'s `array<i64: 2, 1>`."""
    from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, i64

    for held in (op.properties, op.attributes):
        mask = held.get("mask")
        if isinstance(mask, ArrayAttr) and all(
            isinstance(m, IntegerAttr) for m in mask.data
        ):
            values = [m.value.data for m in mask.data if isinstance(m, IntegerAttr)]
            del held["mask"]
            op.properties["mask"] = DenseArrayBase.from_list(i64, values)


def upgrade_token_segments(op: Operation) -> None:
    """`gpu.memcpy` and `gpu.dealloc`, which MLIR prints without segment sizes
    (one variadic group: the async dependencies) and xDSL 0.74 wants with
    them, as an attribute."""
    from xdsl.dialects import gpu

    if "operandSegmentSizes" in op.properties:
        op.attributes["operandSegmentSizes"] = op.properties.pop("operandSegmentSizes")
    elif "operandSegmentSizes" not in op.attributes:
        tokens = sum(isinstance(v.type, gpu.AsyncTokenType) for v in op.operands)
        rest = len(op.operands) - tokens
        op.attributes["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, (tokens, *(1,) * rest)
        )


def _complete_in_bounds(op: Operation) -> None:
    from gpuc.dialects.foreign.vector import complete_in_bounds

    complete_in_bounds(op)


def _upgrade_position(op: Operation) -> None:
    from gpuc.dialects.foreign.vector import upgrade_position

    upgrade_position(op)


def _rename_float_op(op: Operation) -> None:
    """MLIR 16's `arith.maxf`/`minf` as the `maximumf`/`minimumf` they became."""
    from xdsl.dialects.arith import FastMathFlagsAttr

    from gpuc.dialects.foreign.arith import RENAMED

    flags = op.properties.get("fastmath") or op.attributes.pop("fastmath", None)
    new = RENAMED[op.name](
        op.operands[0],
        op.operands[1],
        flags if isinstance(flags, FastMathFlagsAttr) else None,
    )
    new.attributes |= op.attributes
    Rewriter.replace_op(op, new)


def _complete_expand_shape(op: Operation) -> None:
    """MLIR 16 to 18 print `memref.expand_shape` without its output shape
    (MLIR 19 added `output_shape`, which xDSL requires): the static sizes
    from the result type, each dynamic one its source dimension's size over
    the static sizes of its group (`memref.dim`, `arith.divsi`)."""
    from xdsl.dialects import arith, memref

    from gpuc.transforms.foreign.memref_views import reshape_groups

    if "static_output_shape" in op.properties or "static_output_shape" in (
        op.attributes
    ):
        return
    result, source = op.results[0].type, op.operands[0].type
    attr = op.properties.get("reassociation") or op.attributes.get("reassociation")
    groups = reshape_groups(attr)
    if not isinstance(result, MemRefType) or not isinstance(source, MemRefType):
        return
    if groups is None or attr is None:
        return  # the verifier says what is missing
    shape = result.get_shape()
    dynamic: list[Operation] = []
    sizes: list[Any] = []
    for d, dims in enumerate(groups):
        known = prod(shape[k] for k in dims if shape[k] != DYNAMIC_INDEX)
        for k in dims:
            if shape[k] != DYNAMIC_INDEX:
                continue
            at = arith.ConstantOp(IntegerAttr(d, IndexType()))
            size = memref.DimOp.create(
                operands=[op.operands[0], at.result], result_types=[IndexType()]
            )
            by = arith.ConstantOp(IntegerAttr(known, IndexType()))
            part = arith.DivSIOp(size, by)
            dynamic += [at, size, by, part]
            sizes.append(part.result)
    for new in dynamic:
        Rewriter.insert_op(new, InsertPoint.before(op))
    expand = memref.ExpandShapeOp.create(
        operands=[op.operands[0], *sizes],
        result_types=[result],
        properties={
            "reassociation": attr,
            "static_output_shape": DenseArrayBase.from_list(i64, shape),
        },
        attributes={k: v for k, v in op.attributes.items() if k != "reassociation"},
    )
    expand.location = op.location
    Rewriter.replace_op(op, expand)


_UPGRADES: dict[str, Callable[[Any], None]] = {
    "memref.expand_shape": _complete_expand_shape,
    "arith.maxf": _rename_float_op,
    "arith.minf": _rename_float_op,
    "memref.global": _complete_global,
    "gpu.func": _upgrade_gpu_func,
    "gpu.launch_func": _widen_launch_segments,
    "gpu.launch": _widen_launch_segments,
    "scf.yield": _upgrade_parallel_yield,
    "vector.shuffle": _upgrade_shuffle_mask,
    "vector.transfer_read": _complete_in_bounds,
    "vector.transfer_write": _complete_in_bounds,
    "vector.extract": _upgrade_position,
    "vector.insert": _upgrade_position,
    "gpu.memcpy": upgrade_token_segments,
    "gpu.dealloc": upgrade_token_segments,
}
"""Op name -> its upgrade (the op is then an instance of xDSL's class)."""


def upgrade_foreign_ops(module: Operation) -> None:
    """Rewrite, in place, what MLIR prints differently from xDSL 0.74's ops.

    Idempotent; a module xDSL produced itself is left as it is.
    """
    module_ends: list[Operation] = []
    for op in list(module.walk()):
        _rename_segment_sizes(op)
        if op.name == "gpu.module_end":
            module_ends.append(op)
        elif (upgrade := _UPGRADES.get(op.name)) is not None:
            upgrade(op)
    for op in module_ends:
        Rewriter.erase_op(op)


def hoist_trailing_aliases(text: str) -> tuple[str, int]:
    """Move the alias definitions after the module (MLIR prints its `#locN =
    loc(...)` there with `--mlir-print-debuginfo`) before it, where xDSL's
    parser needs them; returns the text and how many lines moved up."""
    tail = text.rstrip()
    last = tail[tail.rfind("\n") + 1 :]
    if tail and not last.startswith("#") and len(last.splitlines()) == 1:
        return text, 0  # the last line is not an alias: the text split no more
    lines = text.splitlines(keepends=True)
    end = len(lines)
    while end > 0 and (lines[end - 1].startswith("#") or not lines[end - 1].strip()):
        end -= 1
    moved = [line if line.endswith("\n") else line + "\n" for line in lines[end:]]
    if not any(line.startswith("#") for line in moved):
        return text, 0
    return "".join(moved) + "".join(lines[:end]), len(moved)


def ambiguous_kind_message(number: int) -> str:
    old, new = AMBIGUOUS_KINDS[number]
    return (
        f"memref.atomic_rmw with kind = {number} in properties (`<{{kind = "
        f"{number} : i64}}>`, as MLIR 18 and later print it) cannot be read: "
        f"MLIR 18-19 number it {old}, MLIR 22 {new}, and the text does not say "
        "which printed it; print the op in custom form (mlir-opt without "
        "--mlir-print-op-generic: `memref.atomic_rmw maxu ...`) or write "
        "`{kind = N : i64}` with MLIR 16's number"
    )


SEMI_AFFINE_KINDS = {
    "*": AffineBinaryOpKind.Mul,
    "ceildiv": AffineBinaryOpKind.CeilDiv,
    "floordiv": AffineBinaryOpKind.FloorDiv,
    "mod": AffineBinaryOpKind.Mod,
}


class SemiAffineParser(AffineParser):
    """xDSL's affine parser, which also reads semi-affine maps: a product, a
    division or a `mod` by a symbol, as MLIR's `convert-parallel-loops-to-gpu`
    writes them (`(d0 - s0) ceildiv s1`, `d0 * s0 + s1`). xDSL builds those
    expressions by folding, which has no rule for them; gpuc builds them as
    they are written (gpuc/dialects/foreign/affine.py expands them)."""

    def _create_binop_expr(
        self, lhs: AffineExpr, rhs: AffineExpr, binop: MLIRToken
    ) -> AffineExpr:
        kind = SEMI_AFFINE_KINDS.get(binop.text)
        constant = isinstance(rhs, AffineConstantExpr) or (
            binop.text == "*" and isinstance(lhs, AffineConstantExpr)
        )
        if kind is None or constant:
            return super()._create_binop_expr(lhs, rhs, binop)
        return AffineBinaryOpExpr(kind, lhs, rhs)


class ForeignParser(LocatingParser):
    """gpuc's parser for other tools' text: refuses what it would misread,
    and reads semi-affine maps (SemiAffineParser).

    A generic `memref.atomic_rmw` is read by its number only where every MLIR
    version means the same by it (`{kind = N}` is MLIR <= 17's attribute
    form, so MLIR 16's numbering; in `<{...}>` only addf 0 and addi 1 agree).
    """

    def parse_affine_map(self) -> AffineMap:
        return SemiAffineParser(self._parser_state).parse_affine_map()

    _properties: dict[str, Attribute] | None = None

    def parse_optional_properties_dict(self) -> dict[str, Attribute]:
        properties = super().parse_optional_properties_dict()
        self._properties = dict(properties)  # the parser adds to it later
        return properties

    def _parse_generic_operation(self, op_type: type[Operation]) -> Operation:
        start = self.pos
        self._properties = None
        op = super()._parse_generic_operation(op_type)
        # atomic_rmw has no regions: the last properties parsed are its own.
        properties: dict[str, Attribute] = self._properties or {}
        kind = properties.get("kind")
        if (
            op.name == "memref.atomic_rmw"
            and isinstance(kind, IntegerAttr)
            and kind.value.data in AMBIGUOUS_KINDS
        ):
            self.raise_error(ambiguous_kind_message(kind.value.data), start, self.pos)
        return op


def parse_foreign_module(
    text: str,
    ctx: Context | None = None,
    name: str = "<input>",
    *,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
    notes: list[str] | None = None,
) -> ModuleOp:
    """Parse module text from any tool (generic or custom form) and upgrade it.

    Host code that does not parse (ops or types neither gpuc nor xDSL knows)
    around `gpu.module`s is skipped unparsed (host_text.py), and a note
    saying so is added to `notes`.

    Ops get their `file:line:col` (or the `loc(...)` the text gives them) for
    diagnostics; `line_offset` is the number of lines before `text` in its file
    (a `--split-input-file` chunk). A parse error is xDSL's ParseError.
    """
    return _parse(text, ctx, name, line_offset, allow_implicit_module, notes)[0]


def parse_module_natively(
    text: str, ctx: Context, name: str, notes: list[str] | None
) -> tuple[ModuleOp, bool]:
    """As `parse_foreign_module`, with whether the module is known, as it was
    read, to hold nothing for the import (the fast reader read it and
    interned no foreign type: `read_module_natively`). False where that is
    not known (xDSL's parser read it): the import's walk then decides."""
    return _parse(text, ctx, name, 0, True, notes)


def _parse(
    text: str,
    ctx: Context | None,
    name: str,
    line_offset: int,
    implicit: bool,
    notes: list[str] | None,
) -> tuple[ModuleOp, bool]:
    """Both readers' work (`implicit`: `allow_implicit_module`): the module
    and whether it is known to hold nothing for the import."""
    if ctx is None:
        from gpuc.context import make_context

        ctx = make_context()
    text, moved = hoist_trailing_aliases(text)
    offset = line_offset - moved
    from gpuc.reader.fast import read_module_natively

    if implicit:
        read = read_module_natively(text, ctx, name, offset)
        if read is not None:
            return read  # the fast reader's ops are gpuc's and xDSL's own
    try:
        module = ForeignParser(ctx, text, name, offset).parse_module(implicit)
    except ParseError as error:
        module = _parse_device_code(text, ctx, name, offset, error, notes)
    upgrade_foreign_ops(module)
    return module, False


def _parse_device_code(
    text: str,
    ctx: Context,
    name: str,
    line_offset: int,
    error: ParseError,
    notes: list[str] | None,
) -> ModuleOp:
    """The gpu.modules of `text` alone, when `error` lies in the host code
    around them; else `error` is the input's fault and is raised."""
    from gpuc.reader.host_text import device_text, gpu_module_spans, line_of

    spans = gpu_module_spans(text)
    at = error.span.start
    if not spans or any(s.start <= at < s.end for s in spans):
        raise error
    module = ForeignParser(
        ctx, device_text(text, spans), name, line_offset
    ).parse_module(True)
    if notes is not None:
        first = error.msg.splitlines()[0] if error.msg else "a parse error"
        notes.append(
            f"{name}:{line_of(text, at) + line_offset}: the host code around the "
            f"{len(spans)} gpu.module(s) was skipped, not parsed ({first}); only "
            "the gpu.modules are compiled"
        )
    return module
