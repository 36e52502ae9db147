"""Vectors of several dimensions in device code, unrolled for `import`.

MLIR's vector ops mean the same in every thread: a `vector<16x16xf16>` is one
thread's value, and a `vector.contract` the whole contraction in each thread.
gpuc lowers 1-D vectors, so each n-D value becomes its rows, each row split
into 1-D vectors of 16, 8, 4 or 2 elements and a scalar (vector_layout); ops
on n-D values become ops on those pieces: arith and math element by element,
`vector.transfer_read`/`transfer_write` and n-D `vector.load`/`store` into
`memref.load`/`memref.store` of each element (out-of-bounds elements of a
dimension not `in_bounds` read the padding and are not written), and
`vector.contract`, `extract`, `insert`, `broadcast`, `shape_cast`,
`transpose` into element moves and row arithmetic. `vector_problem` is what
checks.py reports for ops this cannot take; the import runs `unroll_vectors`
first, so memref accesses it produces are imported like the frontend's own.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from gpuc.dialects.foreign.vector import (
    ContractionOp,
    FromElementsOp,
    ShapeCastOp,
    TransposeOp,
)
from gpuc.transforms.foreign.vector_contract import contract, contract_problem
from gpuc.transforms.foreign.vector_pieces import (
    Element,
    Unroller,
    flat,
    is_nd,
    piece_type,
    points,
    shape,
    vector_layout,
)
from gpuc.transforms.foreign.vector_transfers import (
    TRANSFERS,
    access_problem,
    read,
    transfer_problem,
    write,
)

ELEMENTWISE_DIALECTS = ("arith", "math")
MOVES = (
    "vector.from_elements",
    "vector.extract",
    "vector.insert",
    "vector.broadcast",
    "vector.shape_cast",
    "vector.transpose",
)
ACCESSES = ("vector.load", "vector.store")
CONTROL = ("scf.for", "scf.if", "scf.yield")
FUNCTIONS = ("func.func", "gpu.func", "gpuc.func")
CALLS = ("func.call", "func.return", "gpu.return", "gpuc.call", "gpuc.return")
UNROLLED = (*TRANSFERS, *ACCESSES, "vector.contract", "vector.fma", *MOVES)
"""The vector ops the import takes on vectors of several dimensions."""
SUPPORTED = (
    "arith and math ops element by element, vector.fma, vector.transfer_read, "
    "vector.transfer_write, vector.load, vector.store, vector.contract, "
    + ", ".join((*MOVES, *CONTROL))
)


def _move_problem(op: Operation, where: str) -> str | None:
    """What the verifiers leave to the lowering: positions inside the
    vector, shapes that fit (MLIR's rules)."""
    if isinstance(op, vector.ExtractOp | vector.InsertOp):
        if op.dynamic_position:
            return (
                f"has a dynamic position in a vector of several dimensions{where}; "
                "gpuc takes static positions there"
            )
        whole = op.vector.type if isinstance(op, vector.ExtractOp) else op.dest.type
        part = op.result.type if isinstance(op, vector.ExtractOp) else op.source.type
        dims = shape(whole)
        position = list(op.static_position.get_values())
        if len(position) > len(dims) or any(
            not 0 <= p < n for p, n in zip(position, dims, strict=False)
        ):
            return f"has position {position}, outside {whole}{where}"
        if shape(part) != dims[len(position) :]:
            return f"moves {part} at position {position} of {whole}{where}"
    if isinstance(op, vector.BroadcastOp):
        source, result = shape(op.source.type), shape(op.vector.type)
        lead = len(result) - len(source)
        if lead < 0 or any(
            n not in (1, m) for n, m in zip(source, result[lead:], strict=True)
        ):
            return (
                f"broadcasts {op.source.type} to {op.vector.type}{where}: each "
                "trailing dimension must be 1 or the result's"
            )
    return None


def vector_problem(op: Operation, where: str) -> str | None:
    """Why `op` cannot be unrolled, if it cannot (`where`: ` in @k`)."""
    if op.name in TRANSFERS:
        return transfer_problem(op, where)
    if isinstance(op, ContractionOp):
        return contract_problem(op, where)
    types = [v.type for v in (*op.operands, *op.results)]
    types += [a.type for r in op.regions for b in r.blocks for a in b.args]
    if zero := next(
        (t for t in types if isinstance(t, VectorType) and not t.get_num_dims()),
        None,
    ):
        return f"works on {zero}{where}; gpuc's vectors have at least one dimension"
    nd = next((t for t in types if is_nd(t)), None)
    if nd is None:
        return None
    if op.name in FUNCTIONS or op.name in CALLS:
        what = "takes or returns" if op.name in FUNCTIONS else "passes"
        return (
            f"{what} {nd}{where}; vectors of several dimensions are unrolled "
            "within a function, not passed between functions: pass a memref "
            "and vector.transfer_read it"
        )
    if op.name in MOVES:
        return _move_problem(op, where)
    if isinstance(op, arith.ConstantOp) and not isinstance(
        op.value, DenseIntOrFPElementsAttr
    ):
        return f"is a constant {op.value}{where}; gpuc unrolls dense constants"
    if _elementwise(op) and any(is_nd(r.type) for r in op.results):
        return None
    if op.name in ACCESSES:
        return access_problem(op, where)
    if op.name in CONTROL:
        return None
    return (
        f"works on {nd}{where}; gpuc unrolls vectors of several dimensions "
        f"through {SUPPORTED} (not through calls, functions' parameters or "
        "results, nor other ops)"
    )


def _elementwise(op: Operation) -> bool:
    return not op.regions and (
        op.name.split(".")[0] in ELEMENTWISE_DIALECTS or op.name == "vector.fma"
    )


def rewrite(u: Unroller, op: Operation) -> None:
    u.at = op
    u.extracted.clear()
    u.constants.clear()
    if isinstance(op, vector.TransferReadOp | vector.LoadOp):
        read(u, op)
    elif isinstance(op, vector.TransferWriteOp | vector.StoreOp):
        write(u, op)
    elif isinstance(op, ContractionOp):
        contract(u, op)
    elif isinstance(op, arith.ConstantOp):
        constant(u, op)
    elif op.name in MOVES:
        move(u, op)
    elif isinstance(op, scf.ForOp):
        loop(u, op)
    elif isinstance(op, scf.IfOp):
        branch(u, op)
    elif isinstance(op, scf.YieldOp):
        u.place(scf.YieldOp(*u.flatten(op.operands)))
    else:
        elementwise(u, op)


def elementwise(u: Unroller, op: Operation) -> None:
    count = len(vector_layout(next(v.type for v in op.results if is_nd(v.type))))
    made: list[Operation] = []
    for k in range(count):
        new = type(op).create(
            operands=[u.get(v)[k] if is_nd(v.type) else v for v in op.operands],
            result_types=[
                piece_type(r.type, vector_layout(r.type)[k][1]) for r in op.results
            ],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        u.place(new)
        made.append(new)
    for i, result in enumerate(op.results):
        u.define(result, [new.results[i] for new in made])


def constant(u: Unroller, op: arith.ConstantOp) -> None:
    t = op.result.type
    value = op.value
    assert isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, VectorType)
    values = list(value.get_values())
    count = t.element_count()
    if len(values) == 1:
        values *= count
    pieces: list[SSAValue] = []
    for start, width in vector_layout(t):
        pt = piece_type(t, width)
        part = values[start : start + width]
        attr: DenseIntOrFPElementsAttr | FloatAttr | IntegerAttr
        if isinstance(pt, VectorType):
            attr = DenseIntOrFPElementsAttr.from_list(pt, part)
        elif isinstance(pt, AnyFloat):
            attr = FloatAttr(float(part[0]), pt)
        else:
            assert isinstance(pt, IntegerType | IndexType)  # arith.constant's
            attr = IntegerAttr(int(part[0]), pt)
        pieces.append(u.emit(arith.ConstantOp(attr, pt)))
    u.define(op.result, pieces)


def move(u: Unroller, op: Operation) -> None:
    """from_elements, extract, insert, broadcast, shape_cast, transpose:
    which element of which operand each result element is."""
    result = op.results[0]
    out = shape(result.type)
    refs: list[Element]
    if isinstance(op, FromElementsOp):
        refs = list(op.elements)
    elif isinstance(op, vector.ExtractOp):
        source = shape(op.vector.type)
        position = list(op.static_position.get_values())
        start = flat(position + [0] * (len(source) - len(position)), source)
        refs = [(op.vector, start + i) for i in range(prod(out) if out else 1)]
    elif isinstance(op, vector.InsertOp):
        dest = shape(op.dest.type)
        position = list(op.static_position.get_values())
        start = flat(position + [0] * (len(dest) - len(position)), dest)
        refs = list(u.elements(op.dest))
        for i, ref in enumerate(u.elements(op.source)):
            refs[start + i] = (
                ref if isinstance(op.source.type, VectorType) else op.source
            )
    elif isinstance(op, vector.BroadcastOp):
        source = shape(op.source.type)
        if not source:
            refs = [op.source] * prod(out)
        else:
            lead = len(out) - len(source)
            refs = [
                (
                    op.source,
                    flat(
                        [
                            0 if n == 1 else p
                            for p, n in zip(pt[lead:], source, strict=True)
                        ],
                        source,
                    ),
                )
                for pt in points(out)
            ]
    elif isinstance(op, ShapeCastOp):
        refs = u.elements(op.source)
    else:
        assert isinstance(op, TransposeOp)
        source = shape(op.vector.type)
        dims = op.dims()
        refs = []
        for pt in points(out):
            at = [0] * len(source)
            for k, d in enumerate(dims):
                at[d] = pt[k]
            refs.append((op.vector, flat(at, source)))
    if isinstance(result.type, VectorType) and all(
        use.operation in u.rewritten for use in result.uses
    ):  # built where an op needs its pieces, if one does
        u.virtual[result] = [u.resolve(r) for r in refs]
    else:
        u.define(result, u.build(result.type, refs))


def loop(u: Unroller, op: scf.ForOp) -> None:
    """An scf.for carrying n-D values carries their pieces (new block
    arguments after the old ones, which go once their users have)."""
    body = op.detach_region(op.body)
    block = body.block
    for arg in list(block.args[1:]):
        types = [piece_type(arg.type, w) for _, w in vector_layout(arg.type)]
        new: list[SSAValue] = [block.insert_arg(t, len(block.args)) for t in types]
        if is_nd(arg.type):
            u.pieces[arg] = new
            u.dead_args.append(arg)
        else:
            arg.replace_all_uses_with(new[0])
            block.erase_arg(arg)
    loop = scf.ForOp(op.lb, op.ub, op.step, u.flatten(op.iter_args), body)
    u.place(loop)
    u.define_all(op.results, loop.results)


def branch(u: Unroller, op: scf.IfOp) -> None:
    """An scf.if giving n-D values gives their pieces."""
    types = [
        piece_type(r.type, w) for r in op.results for _, w in vector_layout(r.type)
    ]
    regions = [op.true_region, op.false_region]
    then, otherwise = (op.detach_region(r) for r in regions)
    new = scf.IfOp(op.cond, types, then, otherwise)
    u.place(new)
    u.define_all(op.results, new.results)


def _touches_vectors(op: Operation) -> bool:
    if op.name in TRANSFERS or isinstance(op, ContractionOp):
        return True
    args = [a for r in op.regions for b in r.blocks for a in b.args]
    return any(is_nd(v.type) for v in (*op.operands, *op.results, *args))


def unroll_vectors(module: ModuleOp) -> None:
    """Unroll the n-D vectors of the device code (its gpu.modules, if it has
    any); nothing when an op cannot be (checks.py reports it)."""
    from xdsl.dialects import gpu

    tops: list[Operation] = [op for op in module.ops if isinstance(op, gpu.ModuleOp)]
    tops = tops or list(module.ops)
    ops = [op for top in tops for op in top.walk() if _touches_vectors(op)]
    if not ops or any(vector_problem(op, "") is not None for op in ops):
        return
    unroller = Unroller(set(ops))
    for op in ops:
        rewrite(unroller, op)
    for op in reversed(ops):  # users first
        Rewriter.erase_op(op)
    for arg in unroller.dead_args:
        arg.block.erase_arg(arg)
