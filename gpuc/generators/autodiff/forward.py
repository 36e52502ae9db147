"""Forward mode: the function, computing each value's tangent next to it.

Every floating-point value may have a tangent (none: a constant, zero) and
every pointer to floating-point data a shadow (its tangents in memory). Ops
are copied in order; after each, its rule (rules.py) gives the tangent of its
result. `scf.if`, `scf.for` and `scf.while` carry the tangents of their
floating-point values as extra results, iteration arguments and yields. A
call asks for the callee's forward derivative with its primal results
(`primal = true`) as a deferred job of its own, in place of the call.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gpuc.diagnostics import OpError
from gpuc.dialects.attrs import AtomicKind
from gpuc.dialects.functions import FuncOp, ReturnOp
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
    ptr_type_of,
)
from gpuc.generators.autodiff.common import (
    check_bitcast,
    derivative_call,
    involves_floats,
    is_call,
    no_rule,
)
from gpuc.generators.autodiff.conventions import (
    check_source,
    check_types,
    forward_type,
    is_duplicated,
)
from gpuc.generators.autodiff.inlining import with_indirect_calls_resolved
from gpuc.generators.autodiff.rules import (
    CONSTANTS_FROM_INTEGERS,
    CONVERSIONS,
    RULES,
    Emitter,
    is_float,
)

MODE = "forward"


def _tracked(t: Attribute) -> bool:
    return is_float(t) or is_duplicated(t)


class Forward:
    def __init__(self, source: FuncOp, primal: bool, always_inline: bool):
        self.source = with_indirect_calls_resolved(source)
        self.always_inline = always_inline
        self.primal = primal
        self.vals: dict[SSAValue, SSAValue] = {}
        self.tans: dict[SSAValue, SSAValue] = {}
        """A floating-point value's tangent; a pointer's shadow."""

    def build(self, name: str) -> FuncOp:
        source_type = self.source.function_type
        check_source(self.source)
        body = Block(arg_types=forward_type(source_type, self.primal).inputs.data)
        args = iter(body.args)
        for arg in self.source.body.block.args:
            new = next(args)
            new.name_hint = arg.name_hint
            self.vals[arg] = new
            if _tracked(arg.type):
                tangent = next(args)
                tangent.name_hint = f"d{arg.name_hint}" if arg.name_hint else None
                self.tans[arg] = tangent
        b = Emitter(body)
        terminator = self.ops(self.source.body.block, b)
        assert isinstance(terminator, ReturnOp)
        outs = [v for v in terminator.arguments if is_float(v.type)]
        primal = [self.vals[v] for v in terminator.arguments] if self.primal else []
        b.op(ReturnOp(*primal, *(self.tangent(v, b) for v in outs)))
        return FuncOp(
            name,
            forward_type(source_type, self.primal),
            self.source.role.data,
            Region(body),
        )

    def tangent(self, v: SSAValue, b: Emitter) -> SSAValue:
        """`v`'s tangent, zero when it has none."""
        found = self.tans.get(v)
        return found if found is not None else b.zero(v.type)

    def shadow(self, op: Operation, ptr: SSAValue) -> SSAValue:
        found = self.tans.get(ptr)
        if found is None:
            raise OpError(
                op,
                f"autodiff ({MODE} mode) does not know the shadow of this pointer "
                "to floating-point data (it comes from an op without a derivative "
                "rule); derive the pointer from an argument or an allocation",
            )
        return found

    def ops(self, block: Block, b: Emitter) -> Operation | None:
        """Copy and differentiate `block`'s ops into `b`; return its terminator
        (not copied) if it has one of the parent's kind."""
        for op in block.ops:
            if isinstance(op, ReturnOp | scf.YieldOp | scf.ConditionOp):
                return op
            self.op(op, b)
        return None

    def copy(self, op: Operation, b: Emitter) -> Operation:
        new = b.op(op.clone(value_mapper=dict(self.vals)))
        for old, res in zip(op.results, new.results, strict=True):
            self.vals[old] = res
        return new

    def op(self, op: Operation, b: Emitter) -> None:
        if isinstance(op, scf.IfOp):
            return self.if_op(op, b)
        if isinstance(op, scf.ForOp):
            return self.for_op(op, b)
        if isinstance(op, scf.WhileOp):
            return self.while_op(op, b)
        if is_call(op):
            return self.call(op, b)
        if op.regions:
            if involves_floats(op) or any(involves_floats(o) for o in op.walk()):
                raise no_rule(op, MODE)
            self.copy(op, b)
            return
        active = [v for v in op.operands if v in self.tans]
        check_bitcast(op, MODE, bool(active))
        new = self.copy(op, b)
        memory = self.memory(op, new, b)
        if memory or not involves_floats(op):
            return
        if isinstance(op, arith.ConstantOp) or isinstance(op, CONSTANTS_FROM_INTEGERS):
            return
        float_results = [r for r in op.results if _tracked(r.type)]
        if not float_results:
            return  # comparisons, casts to integers: no derivative flows on
        if isinstance(op, arith.SelectOp):
            t, f = op.operands[1], op.operands[2]
            if t in self.tans or f in self.tans:
                if is_duplicated(op.result.type):
                    self.tans[op.result] = b.value(
                        arith.SelectOp(
                            self.vals[op.operands[0]],
                            self.shadow(op, t),
                            self.shadow(op, f),
                        )
                    )
                else:
                    self.tans[op.result] = b.value(
                        arith.SelectOp(
                            self.vals[op.operands[0]],
                            self.tangent(t, b),
                            self.tangent(f, b),
                        )
                    )
            return
        if isinstance(op, CONVERSIONS):
            if op.operands[0] in self.tans:
                self.tans[op.results[0]] = b.value(
                    type(op)(self.tans[op.operands[0]], op.results[0].type)
                )
            return
        rule = RULES.get(type(op))
        if rule is None or len(op.results) != 1:
            raise no_rule(op, MODE)
        if not active:
            return
        operands = [self.vals[v] for v in op.operands]
        partials = rule(op, operands, new.results[0], b)
        total: SSAValue | None = None
        for v, partial in zip(op.operands, partials, strict=True):
            if v in self.tans and is_float(v.type):
                total = b.accumulate(total, b.scale(partial, self.tans[v]))
        if total is not None:
            self.tans[op.results[0]] = total

    def memory(self, op: Operation, new: Operation, b: Emitter) -> bool:
        """Differentiate a memory op; False if `op` is none."""

        def index(o: LoadOp | StoreOp | AtomicRMWOp) -> SSAValue | None:
            return self.vals[o.index] if o.index is not None else None

        if isinstance(op, LoadOp):
            if is_float(op.result.type):
                shadow = self.shadow(op, op.ptr)
                self.tans[op.result] = b.value(LoadOp(shadow, index(op)))
            return True
        if isinstance(op, StoreOp):
            if is_float(op.value.type):
                shadow = self.shadow(op, op.ptr)
                b.op(StoreOp(self.tangent(op.value, b), shadow, index(op)))
            return True
        if isinstance(op, OffsetOp):
            if op.ptr in self.tans:
                self.tans[op.result] = b.value(
                    OffsetOp(self.tans[op.ptr], self.vals[op.index])
                )
            return True
        if isinstance(op, AddrSpaceCastOp):
            if op.source in self.tans:
                space = ptr_type_of(op.result).address_space
                self.tans[op.result] = b.value(
                    AddrSpaceCastOp(self.tans[op.source], space)
                )
            return True
        if isinstance(op, SharedAllocOp | PrivateAllocOp):
            if is_duplicated(op.result.type):
                self.tans[op.result] = b.value(op.clone())
            return True
        if isinstance(op, AtomicRMWOp):
            if not is_float(op.value.type):
                return True
            kind = op.kind.data
            if kind not in (AtomicKind.ADD, AtomicKind.EXCHANGE):
                raise no_rule(op, MODE)
            shadow = self.shadow(op, op.ptr)
            tangent = b.value(
                AtomicRMWOp(
                    kind,
                    shadow,
                    self.tangent(op.value, b),
                    index(op),
                    ordering=op.memory_order,
                )
            )
            self.tans[op.result] = tangent
            return True
        return False

    def call(self, op: Operation, b: Emitter) -> None:
        if not involves_floats(op):
            self.copy(op, b)
            return
        check_types(
            op, [v.type for v in (*op.operands, *op.results)], "an operand or result"
        )
        args: list[SSAValue] = []
        for v in op.operands:
            args.append(self.vals[v])
            if is_float(v.type):
                args.append(self.tangent(v, b))
            elif is_duplicated(v.type):
                args.append(self.shadow(op, v))
        floats = [r for r in op.results if is_float(r.type)]
        types = [r.type for r in op.results] + [r.type for r in floats]
        call = b.op(
            derivative_call(
                op, MODE, args, types, primal=True, always_inline=self.always_inline
            )
        )
        n = len(op.results)
        for i, r in enumerate(op.results):
            self.vals[r] = call.results[i]
        for i, r in enumerate(floats):
            self.tans[r] = call.results[n + i]

    def if_op(self, op: scf.IfOp, b: Emitter) -> None:
        floats = [i for i, r in enumerate(op.results) if _tracked(r.type)]
        types = [r.type for r in op.results] + [op.results[i].type for i in floats]
        regions: list[Region] = []
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                regions.append(Region())
                continue
            block = Block()
            inner = Emitter(block)
            yield_op = self.ops(region.block, inner)
            assert isinstance(yield_op, scf.YieldOp)
            values = list(yield_op.arguments)
            out = [self.vals[v] for v in values]
            out += [self.tans_of(values[i], inner, op) for i in floats]
            inner.op(scf.YieldOp(*out))
            regions.append(Region(block))
        new = b.op(scf.IfOp(self.vals[op.cond], types, regions[0], regions[1]))
        n = len(op.results)
        for i, r in enumerate(op.results):
            self.vals[r] = new.results[i]
        for k, i in enumerate(floats):
            self.tans[op.results[i]] = new.results[n + k]

    def tans_of(self, v: SSAValue, b: Emitter, where: Operation) -> SSAValue:
        if is_duplicated(v.type):
            return self.shadow(where, v)
        return self.tangent(v, b)

    def for_op(self, op: scf.ForOp, b: Emitter) -> None:
        floats = [i for i, a in enumerate(op.iter_args) if _tracked(a.type)]
        inits = [self.vals[a] for a in op.iter_args]
        inits += [self.tans_of(op.iter_args[i], b, op) for i in floats]
        src = op.body.block
        block = Block(arg_types=[src.args[0].type, *(a.type for a in inits)])
        self.vals[src.args[0]] = block.args[0]
        n = len(op.iter_args)
        for i, arg in enumerate(src.args[1:]):
            self.vals[arg] = block.args[1 + i]
        for k, i in enumerate(floats):
            self.tans[src.args[1 + i]] = block.args[1 + n + k]
        inner = Emitter(block)
        yield_op = self.ops(src, inner)
        assert isinstance(yield_op, scf.YieldOp)
        values = list(yield_op.arguments)
        inner.op(
            scf.YieldOp(
                *[self.vals[v] for v in values],
                *[self.tans_of(values[i], inner, op) for i in floats],
            )
        )
        new = b.op(
            scf.ForOp(
                self.vals[op.lb], self.vals[op.ub], self.vals[op.step], inits, block
            )
        )
        for i, r in enumerate(op.results):
            self.vals[r] = new.results[i]
        for k, i in enumerate(floats):
            self.tans[op.results[i]] = new.results[n + k]

    def while_op(self, op: scf.WhileOp, b: Emitter) -> None:
        floats = [i for i, a in enumerate(op.arguments) if _tracked(a.type)]
        inits = [self.vals[a] for a in op.arguments]
        inits += [self.tans_of(op.arguments[i], b, op) for i in floats]
        before_src, after_src = op.before_region.block, op.after_region.block
        before = Block(arg_types=[a.type for a in inits])
        n = len(op.arguments)
        for i, arg in enumerate(before_src.args):
            self.vals[arg] = before.args[i]
        for k, i in enumerate(floats):
            self.tans[before_src.args[i]] = before.args[n + k]
        inner = Emitter(before)
        cond = self.ops(before_src, inner)
        assert isinstance(cond, scf.ConditionOp)
        passed = list(cond.args)
        passed_floats = [i for i, v in enumerate(passed) if _tracked(v.type)]
        inner.op(
            scf.ConditionOp(
                self.vals[cond.condition],
                *[self.vals[v] for v in passed],
                *[self.tans_of(passed[i], inner, op) for i in passed_floats],
            )
        )
        after_types = [r.type for r in op.results] + [
            op.results[i].type for i in passed_floats
        ]
        after = Block(arg_types=after_types)
        m = len(op.results)
        for i, arg in enumerate(after_src.args):
            self.vals[arg] = after.args[i]
        for k, i in enumerate(passed_floats):
            self.tans[after_src.args[i]] = after.args[m + k]
        inner = Emitter(after)
        yield_op = self.ops(after_src, inner)
        assert isinstance(yield_op, scf.YieldOp)
        values = list(yield_op.arguments)
        inner.op(
            scf.YieldOp(
                *[self.vals[v] for v in values],
                *[self.tans_of(values[i], inner, op) for i in floats],
            )
        )
        new = b.op(scf.WhileOp(inits, after_types, Region(before), Region(after)))
        for i, r in enumerate(op.results):
            self.vals[r] = new.results[i]
        for k, i in enumerate(passed_floats):
            self.tans[op.results[i]] = new.results[m + k]
