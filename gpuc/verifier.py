"""Whether a module verifies, as xDSL's `Operation.verify` decides it, at a
fraction of its cost on large modules.

xDSL re-derives each op's IRDL checks (operand and result counts, variadic
segments, type constraints, properties, attributes) from the op definition on
every op, though a module of thousands of kernels repeats a few dozen shapes.
Here those checks run once per shape: an op class with the same operand and
result types, region entry types and block counts, successor count, and
properties and attributes, each compared by what its constraint reads (the
class, or the class and some parameters, for the constraints known here;
identity for the rest, so an equal value that is another object is checked
again). The traits whose checks read nothing but the shape (ReturnLike,
NoTerminator, HasParent, the parent op's class then part of the shape, and
SymbolOpInterface where the name is a required property) run with them;
IsTerminator's is the walk's own (the op is its block's last). The checks
that read more than the shape (other traits' and the op's own `verify_`,
terminators, parent links) run on every op.

`verifies` answers yes or no and says nothing of why: a module it rejects is
verified again by xDSL's verifier, whose diagnostic is the one reported
(`gpuc.diagnostics.verify_located`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    EmptyArrayAttrConstraint,
    SymbolNameConstraint,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    OpTrait,
    ParametrizedAttribute,
    Region,
)
from xdsl.ir.core import ErasedSSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    MessageConstraint,
    ParamAttrConstraint,
    VerificationContext,
)
from xdsl.irdl.operations import (
    OpDef,
    OptAttributeDef,
    OptPropertyDef,
    VarIRConstruct,
    irdl_op_verify_arg_list,
    irdl_op_verify_regions,
    verify_variadic_size,
)
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    ReturnLike,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
)

_Check = Callable[[Operation], None]
_Key = Callable[[Attribute], object]
"""What of an attribute decides whether it meets one constraint."""


def _nothing(attr: Attribute) -> object:
    return None


def _array_length(attr: Attribute) -> object:
    return len(attr.data) if isinstance(attr, ArrayAttr) else type(attr)


def _key(constraint: AttrConstraint) -> _Key:
    """What `constraint.verify` reads of an attribute, for the constraint
    classes whose `verify` is known here; the attribute's identity otherwise."""
    kind = type(constraint)
    if kind is AnyAttr:
        return _nothing
    if kind is BaseAttr or kind is SymbolNameConstraint:
        return type
    if kind is EmptyArrayAttrConstraint:
        return _array_length
    if isinstance(constraint, MessageConstraint) and kind is MessageConstraint:
        return _key(constraint.constr)
    if isinstance(constraint, AnyOf) and kind is AnyOf:
        return _any_of_key(constraint)
    if isinstance(constraint, AllOf) and kind is AllOf:
        parts = tuple(_key(c) for c in constraint.attr_constrs)
        return lambda attr: (type(attr), tuple(part(attr) for part in parts))
    if isinstance(constraint, ParamAttrConstraint) and kind is ParamAttrConstraint:
        return _parametrized_key(constraint)
    return id


def _any_of_key(constraint: AnyOf[Attribute]) -> _Key:
    """AnyOf verifies an attribute by the one constraint its class selects
    (`_based_constrs`, else the abstract one): the class and what that one
    reads. A constant's value, with four alternatives: 3.7 -> 1.2 us."""
    based = getattr(constraint, "_based_constrs", None)
    if not isinstance(based, dict) or not hasattr(constraint, "_abstr_constr"):
        parts = tuple(_key(c) for c in constraint.attr_constrs)
        return lambda attr: (type(attr), tuple(part(attr) for part in parts))
    keys = {cls: _key(c) for cls, c in based.items()}
    abstract = constraint._abstr_constr  # noqa: SLF001
    other = _nothing if abstract is None else _key(abstract)

    def any_of(attr: Attribute) -> object:
        cls = type(attr)
        return (cls, keys.get(cls, other)(attr))

    return any_of


def _parametrized_key(constraint: ParamAttrConstraint[ParametrizedAttribute]) -> _Key:
    """The class and what each parameter's constraint reads (AnyAttr's
    nothing left out); an attribute of exactly the base class has its
    parameters read as fields, not through the `parameters` property."""
    base = constraint.base_attr
    params = tuple(_key(c) for c in constraint.param_constrs)
    read = tuple((n, k) for n, k in enumerate(params) if k is not _nothing)
    fields = tuple(name for name, _ in base.get_irdl_definition().parameters)

    def parametrized(attr: Attribute) -> object:
        if not isinstance(attr, base):
            return type(attr)
        assert isinstance(attr, ParametrizedAttribute)
        values = attr.parameters
        if len(values) != len(params):
            return id(attr)
        return (type(attr), tuple(k(values[n]) for n, k in read))

    if len(fields) != len(params) or len(read) != 1:
        return parametrized
    # One parameter read (a symbol reference's nested references, a
    # constant's type): 1.9 -> 0.5 us an attribute.
    index, only = read[0]
    get = attrgetter(fields[index])

    def one_parameter(attr: Attribute) -> object:
        if type(attr) is not base:
            return parametrized(attr)
        return (base, only(get(attr)))

    return one_parameter


@dataclass(frozen=True)
class _Plan:
    """What verifying an op of one IRDL class runs: its definition's checks
    and `shape_checks` (`op_def`, memoized by shape: the shape holds the
    parent op's class where `parent` says so, the class of each block's last
    op where `last_ops` does), then `checks` (traits with a verifier, the
    class's own `verify_`) on every op."""

    op_def: OpDef
    traits: frozenset[OpTrait]
    checks: tuple[_Check, ...]
    properties: tuple[tuple[str, _Key], ...]
    attributes: tuple[tuple[str, _Key], ...]
    shape_checks: tuple[_Check, ...] = ()
    parent: bool = False
    terminator: bool = False
    """Whether the class has IsTerminator, whose check the walk makes."""
    last_ops: bool = False


_SHAPE_TRAITS = (ReturnLike, NoTerminator, HasParent, SingleBlockImplicitTerminator)
"""The traits whose `verify` reads only the op's class, result and successor
counts, its regions' block counts, (HasParent) its parent op's class and
(SingleBlockImplicitTerminator) the class of each block's last op: what a
shape holds. Their exact classes: a subclass may read more."""


_PLANS: dict[type[Operation], _Plan | None] = {}


def _own_verify(cls: type[IRDLOperation]) -> _Check | None | bool:
    """The `verify_` `irdl_op_definition` wrapped for `cls` (None: the
    default, which checks nothing), or False when `cls.verify_` is not the
    wrapper it generates (then the op's `verify_` runs whole)."""
    wrapper = cls.verify_
    code = getattr(wrapper, "__code__", None)
    cells = getattr(wrapper, "__closure__", None)
    if code is None or cells is None or code.co_name != "verify_":
        return False
    bound = dict(zip(code.co_freevars, (c.cell_contents for c in cells), strict=True))
    if bound.get("op_def") is not cls.get_irdl_definition():
        return False
    custom = bound.get("custom_verify")
    if custom is None or custom is Operation.verify_:
        return None
    return custom if callable(custom) else False


def _reads_the_shape(trait: OpTrait, op_def: OpDef) -> bool:
    """Whether `trait.verify` reads only what an op's shape holds: one of
    `_SHAPE_TRAITS`, or SymbolOpInterface where `sym_name` is a required
    property whose class is in the shape (the trait asks whether the
    property, read before any attribute of that name, is a StringAttr)."""
    kind = type(trait)
    if kind in _SHAPE_TRAITS:
        return True
    if kind is not SymbolOpInterface:
        return False
    sym_name = op_def.properties.get("sym_name")
    return (
        sym_name is not None
        and not isinstance(sym_name, OptPropertyDef)
        and _key(sym_name.constr) is type
    )


def _plan(cls: type[Operation]) -> _Plan | None:
    """How ops of `cls` verify; None where the op's own `verify_` runs whole
    (not an IRDL op, or one whose verifier is not irdl_op_definition's)."""
    if cls in _PLANS:
        plan = _PLANS[cls]
        if plan is None or plan.traits is plan.op_def.traits.traits:
            return plan
    plan = None
    if issubclass(cls, IRDLOperation) and cls.verify is Operation.verify:
        own = _own_verify(cls)
        if own is not False:
            op_def = cls.get_irdl_definition()
            traits = op_def.traits.traits
            # IsolatedFromAbove is checked as the walk meets each operand
            # and IsTerminator as it meets each op (`_Verifier.op`), not by a
            # walk or a call of their own.
            verified = [
                t
                for t in traits
                if type(t).verify is not OpTrait.verify
                and type(t) not in (IsolatedFromAbove, IsTerminator)
            ]
            by_shape = [t for t in verified if _reads_the_shape(t, op_def)]
            checks: list[_Check] = [t.verify for t in verified if t not in by_shape]
            if own is not None:
                assert callable(own)
                checks.append(own)
            plan = _Plan(
                op_def,
                traits,
                tuple(checks),
                tuple((n, _key(d.constr)) for n, d in op_def.properties.items()),
                tuple((n, _key(d.constr)) for n, d in op_def.attributes.items()),
                tuple(t.verify for t in by_shape),
                any(type(t) is HasParent for t in verified),
                any(type(t) is IsTerminator for t in traits),
                any(type(t) is SingleBlockImplicitTerminator for t in verified),
            )
    _PLANS[cls] = plan
    return plan


def _definition_checks(op: Operation, op_def: OpDef) -> None:
    """What `OpDef.verify` checks besides the traits."""
    context = VerificationContext()
    irdl_op_verify_arg_list(op, op_def, VarIRConstruct.OPERAND, context)
    irdl_op_verify_arg_list(op, op_def, VarIRConstruct.RESULT, context)
    irdl_op_verify_regions(op, op_def, context)
    verify_variadic_size(op, op_def, VarIRConstruct.SUCCESSOR)
    for name, prop in op_def.properties.items():
        if name in op.properties:
            prop.constr.verify(op.properties[name], context)
        elif not isinstance(prop, OptPropertyDef):
            raise ValueError(name)
    if any(name not in op_def.properties for name in op.properties):
        raise ValueError("undefined property")
    for name, attr in op_def.attributes.items():
        if name in op.attributes:
            attr.constr.verify(op.attributes[name], context)
        elif not isinstance(attr, OptAttributeDef):
            raise ValueError(name)


_END = object()
"""Ends each part of a shape (operand types, result types, ...)."""
_TYPE = attrgetter("_type")
"""A value's type, without the call of its `type` property."""


def _shape(op: Operation, plan: _Plan) -> tuple[object, ...]:
    """What `_definition_checks` reads of `op`: types by identity, properties
    and attributes by what their constraints read, as one flat tuple (each
    part ended by `_END`)."""
    key: list[object] = [
        type(op),
        *map(id, map(_TYPE, op._operands)),  # noqa: SLF001
        _END,
        *map(id, map(_TYPE, op.results)),
        _END,
    ]
    last_ops = plan.last_ops
    for region in op.regions:
        first = region._first_block  # noqa: SLF001
        blocks = 0
        block = first
        while block is not None:
            blocks += 1
            if last_ops:  # classes, then the count (an int): one reading
                key.append(type(block._last_op))  # noqa: SLF001
            block = block._next_block  # noqa: SLF001
        key.append(blocks)
        if first is not None:
            key.extend(map(id, map(_TYPE, first._args)))  # noqa: SLF001
        key.append(_END)
    key.append(_END)
    key.append(len(op._successors))  # noqa: SLF001
    if plan.parent:
        above = op.parent
        around = None if above is None else above.parent
        key.append(type(None if around is None else around.parent))
    properties = op.properties
    if properties:
        # How many, not which: with the defined ones' keys below, that says
        # whether any undefined one is there.
        key.append(len(properties))
        get = properties.get
        for name, part in plan.properties:
            value = get(name)
            key.append(_END if value is None else part(value))
    key.append(_END)
    attributes = op.attributes
    if attributes:
        get = attributes.get
        for name, part in plan.attributes:
            value = get(name)
            key.append(_END if value is None else part(value))
    return tuple(key)


_TRAITS: dict[type[Operation], tuple[frozenset[OpTrait], bool, bool, bool]] = {}


def _traits(cls: type[Operation]) -> tuple[bool, bool, bool]:
    """Whether ops of `cls` are IsTerminator, NoTerminator, IsolatedFromAbove."""
    traits = cls.traits.traits
    known = _TRAITS.get(cls)
    if known is None or known[0] is not traits:
        known = _TRAITS[cls] = (
            traits,
            cls.has_trait(IsTerminator),
            cls.has_trait(NoTerminator),
            cls.has_trait(IsolatedFromAbove),
        )
    return known[1:]


def _isolated_from_above(op: Operation) -> None:
    """`IsolatedFromAbove().verify(op)`: every operand used in `op`'s regions
    (those of nested ops that are not isolated themselves included) is
    defined inside `op`. Whether a block is inside is asked once per block.
    (The walk checks this as it goes; this runs where it could not: an op
    inside verified itself whole.)"""
    inside: dict[Block, bool] = {}
    regions = list(op.regions)
    while regions:
        for block in regions.pop().blocks:
            inside[block] = True
            child = block.first_op
            while child is not None:
                for operand in child._operands:  # noqa: SLF001
                    # The owner's class by the value's: isinstance on xDSL's
                    # (abstract) IR classes costs a call into abc.
                    kind = operand.__class__
                    if kind is BlockArgument:
                        where = operand.block
                    elif kind is OpResult or isinstance(operand.owner, Operation):
                        owner = operand.owner
                        if owner is op:
                            raise ValueError("an operand is the isolated op's")
                        where = owner.parent
                        if where is None:
                            raise ValueError("an operand defined outside")
                    else:
                        where = operand.owner
                    known = inside.get(where)
                    if known is None:
                        known = inside[where] = op.is_ancestor(where)
                    if not known:
                        raise ValueError("an operand defined outside")
                if not _traits(type(child))[2]:
                    regions.extend(child.regions)
                child = child._next_op  # noqa: SLF001


_Kind = tuple[bool, _Plan | None, bool, bool, bool]
"""What the walk asks of an op class (`_kind`)."""


def _kind(cls: type[Operation]) -> _Kind:
    """Whether ops of `cls` verify themselves whole (their class overrides
    `verify`), their plan (None for those), and whether they are
    IsTerminator, NoTerminator and IsolatedFromAbove: one lookup an op."""
    whole = cls.verify is not Operation.verify
    return (whole, None if whole else _plan(cls), *_traits(cls))


class _Verifier:
    """One verification of one module: `seen` holds the shapes that passed
    their definition's checks (every attribute a shape names by identity is
    alive in the module meanwhile, so no id is reused).

    IsolatedFromAbove is checked in the same walk: each block entered is
    given its scope, the closest op around it with that trait, and each
    operand must be defined in a block of its user's scope. That is stricter
    than xDSL only for IR that breaks dominance (a value defined in an
    isolated op, used after it), which then takes xDSL's verifier, as every
    no does."""

    def __init__(self) -> None:
        self.seen: set[tuple[object, ...]] = set()
        self.kinds: dict[type[Operation], _Kind] = {}
        """What the walk asks of each op class met, asked once per
        verification (`_kind`)."""
        self.scopes: dict[int, Operation | None] = {}
        """id of each block entered -> its scope (None: no isolated op around
        it inside the verified op)."""
        self.whole = 0
        """How many ops verified themselves whole, nested ops included (their
        operands' scopes unchecked by the walk)."""

    def kind(self, cls: type[Operation]) -> _Kind:
        kind = self.kinds.get(cls)
        if kind is None:
            kind = self.kinds[cls] = _kind(cls)
        return kind

    def op(self, op: Operation, scope: Operation | None = None) -> None:
        """`Operation.verify(op)`, nested ops included; `scope` is the
        isolation scope of `op`'s block (None for the verified op itself:
        the walk entered no block yet)."""
        cls = type(op)
        kinds = self.kinds
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = _kind(cls)
        whole, plan, terminator, _, isolated = kind
        if whole:
            self.whole += 1
            op.verify()
            return
        block = op.parent
        scopes = self.scopes
        for operand in op._operands:  # noqa: SLF001
            # The defining block by the value's class (isinstance on xDSL's
            # abstract IR classes costs a call into abc); a value of the op's
            # own block is in its scope.
            value_class = operand.__class__
            where: object
            if value_class is OpResult:  # its op, not the `owner` property's call
                where = cast(OpResult, operand).op.parent
            elif value_class is BlockArgument:
                where = cast(BlockArgument, operand).block
            elif isinstance(operand, ErasedSSAValue):
                raise ValueError("erased value used")
            elif scope is None:
                continue
            elif isinstance(operand.owner, Operation):
                where = operand.owner.parent
            else:
                where = operand.owner
            if (
                scope is not None
                and where is not block
                and scopes.get(id(where)) is not scope
            ):
                raise ValueError("an operand defined outside its isolated scope")
        # The links themselves, not the properties over them: a call saved
        # per op is a tenth of a verification.
        last = block is not None and block._last_op is op  # noqa: SLF001
        if op._successors:  # noqa: SLF001
            region = None if block is None else block.parent
            if region is None or not last:
                raise ValueError("successors")
            if any(succ.parent is not region for succ in op._successors):  # noqa: SLF001
                raise ValueError("successor in another region")
        if last and not terminator:
            assert block is not None  # `last` says so
            region = block.parent
            if region is not None:
                parent = region.parent
                if region._first_block is not region._last_block or (  # noqa: SLF001
                    parent is not None and not self.kind(type(parent))[3]
                ):
                    raise ValueError("not a terminator")
        regions = op.regions
        if regions:
            inner = op if isolated else scope
            for nested in regions:
                entered = nested._first_block  # noqa: SLF001
                while entered is not None:
                    scopes[id(entered)] = inner
                    entered = entered._next_block  # noqa: SLF001
            whole_before = self.whole
            for nested in regions:
                self.region(nested)
            if isolated and self.whole != whole_before:
                _isolated_from_above(op)
        if plan is None:
            op.verify_()
            return
        if plan.terminator and not last and block is not None:
            raise ValueError("a terminator not last in its block")
        shape = _shape(op, plan)
        if shape not in self.seen:
            _definition_checks(op, plan.op_def)
            for check in plan.shape_checks:
                check(op)
            self.seen.add(shape)
        for check in plan.checks:
            check(op)

    def region(self, region: Region) -> None:
        block = region._first_block  # noqa: SLF001
        while block is not None:  # region.blocks, without its iterator's calls
            self.block(block)
            if block.parent is not region:
                raise ValueError("block parent")
            block = block._next_block  # noqa: SLF001

    def block(self, block: Block) -> None:
        scope = self.scopes.get(id(block))  # one lookup a block, not an op
        visit = self.op
        op = block.first_op
        while op is not None:  # block.ops, without its iterator's calls
            if op.parent is not block:
                raise ValueError("op parent")
            visit(op, scope)
            op = op._next_op  # noqa: SLF001
        if block.first_op is None:
            region = block.parent
            parent = None if region is None else region.parent
            if (
                region is not None
                and parent is not None
                and len(region.blocks) == 1
                and not self.kind(type(parent))[3]
            ):
                raise ValueError("empty block")


def verifies(op: Operation) -> bool:
    """Whether `op.verify()` would pass (any exception from a check is a no)."""
    try:
        _Verifier().op(op)
    except Exception:
        return False
    return True
