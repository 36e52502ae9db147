"""Inlining one call: the machinery, kept apart from the `inline` pass that
decides which calls to inline (as MLIR keeps its inlining utilities apart
from the inliner pass).

A callee body of one block is cloned in front of the call, its `gpuc.return`
operands replacing the call's results. A body of several blocks (cf
branches) needs a region that may hold several blocks:

- in a function's own region, the caller's block is split after the call,
  the callee's blocks are cloned in between, the call becomes a `cf.br` to
  the cloned entry block and each `gpuc.return` a `cf.br` to the continuation
  block, whose arguments replace the call's results;
- in a region that must hold a single block (`scf.if`, `scf.for`, ...),
  where MLIR refuses to inline, the callee's blocks are cloned into an
  `scf.execute_region` (the op MLIR provides to run several blocks inside
  such a region) and each `gpuc.return` becomes an `scf.yield`.

A callee inlined at its only call and erased next is moved, not cloned (as
MLIR's inliner moves the region of a callable it discards).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    LocationAttr,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import BlockInsertPoint, Rewriter

from gpuc.dialects.functions import FUNCTION_OPS, CallOp, FuncOp, ReturnOp
from gpuc.dialects.uses import erase_unused, replace_uses
from gpuc.dialects.walk import preorder

MULTI_BLOCK_PARENTS = FUNCTION_OPS | {"scf.execute_region"}
"""Ops whose regions may hold several blocks, so a call in them can be split
(by name: the func, cf and scf dialects are imported only when a callee of
several blocks needs them, which a compile of one-block callees never does)."""


def _returns(blocks: list[Block]) -> list[ReturnOp]:
    return [b.last_op for b in blocks if isinstance(b.last_op, ReturnOp)]


def _replace_results(call: CallOp, values: list[SSAValue]) -> None:
    # `results` and `operands` are `res` and `arguments` (each op's only
    # group), without the generic accessors' search of the op definition.
    for result, value in zip(call.results, values, strict=True):
        replace_uses(result, value)
    erase_unused(call)


def _body(callee: FuncOp, move: bool) -> Region:
    """The callee's blocks to inline: a copy, or with `move` the blocks
    themselves, in a region of their own (the callee is left without)."""
    if not move:
        return callee.body.clone()
    region = Region()
    callee.body.move_blocks(region)
    for block in region.blocks:
        block.name_hint = None  # as a copy's blocks are: the output is the same
    return region


def _move_single_block(call: CallOp, entry: Block) -> list[Operation]:
    block = call.parent_block()
    assert block is not None
    for arg, operand in zip(entry.args, call.operands, strict=True):
        replace_uses(arg, operand)
    ret = entry.last_op
    assert isinstance(ret, ReturnOp)
    moved = _splice_before(entry, ret, block, call)
    _replace_results(call, list(ret.operands))
    erase_unused(ret)
    return moved


def _splice_before(
    entry: Block, end: Operation, block: Block, before: Operation
) -> list[Operation]:
    """Move `entry`'s ops up to `end` (excluded) in front of `before` in
    `block`, relinking xDSL's list once instead of a detach and an insert per
    op (each insert walks up from `block` to check that the op does not hold
    it: checked here once, for `entry`)."""
    above: Block | None = block  # `entry.is_ancestor(block)`, by the links
    while above is not None:
        if above is entry:
            raise ValueError("cannot move ops into a block they contain")
        region = above.parent
        holder = None if region is None else region.parent
        above = None if holder is None else holder.parent
    moved: list[Operation] = []
    op = entry.first_op
    while op is not end:
        assert op is not None
        op.parent = block
        moved.append(op)
        op = op.next_op
    if not moved:
        return moved
    first, last = moved[0], moved[-1]
    entry._first_op = end  # noqa: SLF001
    end._prev_op = None  # noqa: SLF001
    prev = before.prev_op
    first._prev_op = prev  # noqa: SLF001
    if prev is None:
        block._first_op = first  # noqa: SLF001
    else:
        prev._next_op = first  # noqa: SLF001
    last._next_op = before  # noqa: SLF001
    before._prev_op = last  # noqa: SLF001
    return moved


def _inline_single_block(call: CallOp, entry: Block) -> list[Operation]:
    block = call.parent_block()
    assert block is not None
    mapper: dict[SSAValue, SSAValue] = dict(
        zip(entry.args, call.arguments, strict=True)
    )
    copies: list[Operation] = []
    for op in entry.ops:
        if isinstance(op, ReturnOp):
            _replace_results(call, [mapper.get(v, v) for v in op.arguments])
            break
        copy = op.clone(value_mapper=mapper)
        block.insert_op_before(copy, call)
        copies.append(copy)
    return copies


def _inline_split(call: CallOp, callee: FuncOp, move: bool) -> list[Operation]:
    """Several callee blocks, between the two halves of the caller's block."""
    from xdsl.dialects import cf

    block = call.parent_block()
    assert block is not None and block.parent is not None
    after = call.next_op
    assert after is not None, "a call in a function region is followed by a terminator"
    continuation = block.split_before(after, arg_types=call.res.types)
    # Clone into a fresh region and move the blocks: xDSL's `clone_into` maps
    # operands wrongly when the destination region already has blocks.
    copy = _body(callee, move)
    cloned = list(copy.blocks)
    Rewriter.inline_region(copy, BlockInsertPoint.before(continuation))
    for ret in _returns(cloned):
        ret_block = ret.parent_block()
        assert ret_block is not None
        ret_block.insert_op_before(cf.BranchOp(continuation, *ret.arguments), ret)
        ret_block.erase_op(ret)
    enter = cf.BranchOp(cloned[0], *call.arguments)
    enter.location = call.location
    block.insert_op_before(enter, call)
    _replace_results(call, list(continuation.args))
    return [op for b in cloned for op in b.ops]


def _inline_execute_region(call: CallOp, callee: FuncOp, move: bool) -> list[Operation]:
    """Several callee blocks, inside a region that must keep a single block."""
    from xdsl.dialects import scf

    region = _body(callee, move)
    cloned = list(region.blocks)
    entry = cloned[0]
    for arg, operand in zip(entry.args, call.arguments, strict=True):
        replace_uses(arg, operand)
    for arg in reversed(entry.args):
        entry.erase_arg(arg)
    for ret in _returns(cloned):
        ret_block = ret.parent_block()
        assert ret_block is not None
        ret_block.insert_op_before(scf.YieldOp(*ret.arguments), ret)
        ret_block.erase_op(ret)
    execute = scf.ExecuteRegionOp(call.res.types, region)
    block = call.parent_block()
    assert block is not None
    block.insert_op_before(execute, call)
    _replace_results(call, list(execute.results))
    return [execute]


def inline_call(
    call: CallOp,
    callee: FuncOp,
    move: bool = False,
    calls: list[CallOp] | None = None,
) -> list[Operation]:
    """Replace `call` by a copy of `callee`'s body (which must have one); with
    `move`, by the body itself, for a callee erased next.

    Returns the copied ops at the top of what was inserted; with `calls`, also
    appends to it the calls among them and nested in them, in program order,
    for a caller that inlines further (found in the walk that locates the
    copies, not in a second one). Each copy is located at the call site
    (`_at_call_site`).
    """
    body = callee.regions[0]
    location = call.location
    if body._first_block is body._last_block:  # noqa: SLF001
        entry = body._first_block  # noqa: SLF001
        assert entry is not None
        if move:
            copies = _move_single_block(call, entry)
        else:
            copies = _inline_single_block(call, entry)
    else:
        parent = call.parent_op()
        if parent is not None and parent.name in MULTI_BLOCK_PARENTS:
            copies = _inline_split(call, callee, move)
        else:
            copies = _inline_execute_region(call, callee, move)
    unknown = isinstance(location, UnknownLoc)
    if unknown and calls is None:
        return copies  # nothing to add to the copies' own locations
    name = callee.sym_name
    for copy in copies:
        for op in preorder(copy):
            if not unknown:
                op.location = _at_call_site(op.location, name, location)
            if calls is not None:
                is_call = _CALLS.get(type(op))
                if is_call is None:
                    is_call = _is_call(type(op))
                if is_call:
                    calls.append(op)  # type: ignore[arg-type]
    return copies


_CALLS: dict[type[Operation], bool] = {}


def _is_call(cls: type[Operation]) -> bool:
    """Whether ops of `cls` are `CallOp`s (a dict hit per op, not a call
    into abc)."""
    found = _CALLS.get(cls)
    if found is None:
        found = _CALLS[cls] = issubclass(cls, CallOp)
    return found


def _at_call_site(
    loc: Attribute, callee: StringAttr, call: LocationAttr
) -> LocationAttr:
    """`loc`, of an op of `callee` inlined at a call located at `call`:
    `callsite("callee"(loc) at call)`, as MLIR's inliner writes it, the name
    saying whose lines these are (the line tables' inlined scope); an op
    inlined earlier gets the new call site at the end of its chain; one
    without a location (made by inlining) is the call's. (`inline_call`
    asks this only for a call with a location.)

    The most frequent location, a file position, is known by its class
    alone: isinstance on xDSL's (abstract) attribute classes costs a call
    into abc, four an inlined op."""
    if type(loc) is not FileLineColLoc:
        assert isinstance(loc, LocationAttr)
        if isinstance(loc, UnknownLoc):
            return call
        if isinstance(loc, CallSiteLoc):
            return _call_site(loc.callee, _at_call_site(loc.caller, callee, call))
    name = NameLoc.__new__(NameLoc)
    object.__setattr__(name, "desc", callee)
    object.__setattr__(name, "location", loc)
    return _call_site(name, call)


def _call_site(callee: Attribute, caller: LocationAttr) -> CallSiteLoc:
    """CallSiteLoc(callee, caller), made as xDSL's constructor makes it but
    for its verifier, which checks that both are locations: they are (the
    callee a NameLoc made here, whose name is a StringAttr and location a
    location, or the callee of a CallSiteLoc that was verified).
    A location per inlined op: the checks were a third of inlining bench/
    scale.py's 1,000 kernels' helpers."""
    site = CallSiteLoc.__new__(CallSiteLoc)
    object.__setattr__(site, "callee", callee)
    object.__setattr__(site, "caller", caller)
    return site
