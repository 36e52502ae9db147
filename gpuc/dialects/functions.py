"""Functions, calls and device-side launches of the gpuc dialect.

`gpuc.func` carries a role (`kernel` or `helper`), MLIR visibility and an
inlining hint; no body makes it an external declaration. Calls resolve their
callee through the per-module symbol table in `symbols.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Protocol

from xdsl.dialects.builtin import (
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarOperand,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    ReturnLike,
    SymbolOpInterface,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import (
    FuncPtrType,
    InlineHint,
    InlineHintAttr,
    Role,
    RoleAttr,
    parse_enum_keyword,
)
from gpuc.dialects.symbols import lookup_nearest

FUNCTION_OPS = frozenset({"gpuc.func", "func.func", "gpu.func"})
"""The ops that are functions, by name: gpuc's, and func's and gpu's before
`import` (by name, so asking never imports the func or gpu dialect)."""


def fmt_types(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


_TYPE = attrgetter("_type")


def value_types(values: Sequence[SSAValue]) -> tuple[Attribute, ...]:
    """The types of `values` (operands, results, block arguments), as
    `SSAValues.types` and `Block.arg_types` give them, by one map: a third of
    their generator's time, for checks every function and call runs."""
    return tuple(map(_TYPE, values))


def check_signature(
    what: str,
    operands: Sequence[Attribute],
    results: Sequence[Attribute],
    signature: FunctionType,
) -> None:
    """Raise a VerifyException when operand or result types differ from `signature`."""
    expected_in, expected_out = signature.inputs.data, signature.outputs.data
    if tuple(operands) != tuple(expected_in):
        raise VerifyException(
            f"{what}: operand types {fmt_types(operands)} differ from the callee's "
            f"parameter types {fmt_types(expected_in)}"
        )
    if tuple(results) != tuple(expected_out):
        raise VerifyException(
            f"{what}: result types {fmt_types(results)} differ from the callee's "
            f"result types {fmt_types(expected_out)}"
        )


class FuncCallable(CallableOpInterface):
    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


def check_declaration_end(parser: Parser, has_hint: bool, has_attributes: bool) -> None:
    """A function without a body ends where it is declared: a bare word right
    after it (no dialect prefix, so not the next op) is a misspelt inline
    hint or a word out of place, reported here rather than as an unknown op."""
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    token = parser._current_token
    if token.kind != MLIRTokenKind.BARE_IDENT or "." in token.text:
        return
    if token.text == "module":
        return
    expected = ["the body '{'"]
    if not has_attributes:
        expected.insert(0, "attributes")
        if not has_hint:
            expected.insert(0, "an inline hint (always_inline, no_inline)")
    expected = (
        [", ".join(expected[:-1]) + " or " + expected[-1]]
        if len(expected) > 1
        else expected
    )
    parser.raise_error(
        f"expected {expected[0]} after the function's role, got '{token.text}'",
        token.span.start,
        token.span.end,
    )


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A function with a role; no body makes it a declaration.

    `gpuc.func [private] @name(%a: T) [-> R] kernel|helper [always_inline|no_inline]`
    """

    name = "gpuc.func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    role = prop_def(RoleAttr)
    inline = opt_prop_def(InlineHintAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), FuncCallable())

    def __init__(
        self,
        name: str,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        role: Role,
        region: Region | None = None,
        *,
        visibility: str | None = None,
        inline: InlineHint | None = None,
    ):
        if isinstance(function_type, tuple):
            function_type = FunctionType.from_lists(*function_type)
        if region is None:
            region = Region(Block(arg_types=function_type.inputs.data))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": function_type,
                "sym_visibility": StringAttr(visibility) if visibility else None,
                "role": RoleAttr(role),
                "inline": InlineHintAttr(inline) if inline else None,
            },
            regions=[region],
        )

    @staticmethod
    def declaration(
        name: str,
        inputs: Sequence[Attribute],
        outputs: Sequence[Attribute],
        role: Role = Role.HELPER,
    ) -> FuncOp:
        return FuncOp(name, (inputs, outputs), role, Region(), visibility="private")

    # The accessors below read `regions` and `properties` directly, not
    # through xDSL's generic field accessors: every pass asks them of every
    # function, several times (a few million calls on a module of thousands).

    @property
    def is_declaration(self) -> bool:
        return self.regions[0].first_block is None

    @property
    def is_kernel(self) -> bool:
        role = self.properties["role"]
        assert isinstance(role, RoleAttr)
        return role.data is Role.KERNEL

    @property
    def visibility(self) -> str:
        visibility = self.properties.get("sym_visibility")
        return visibility.data if isinstance(visibility, StringAttr) else "public"

    @property
    def inline_hint(self) -> InlineHint | None:
        hint = self.properties.get("inline")
        return hint.data if isinstance(hint, InlineHintAttr) else None

    def verify_(self) -> None:
        # Each accessor asked once: every function of every module verified
        # (twice a compile) runs this.
        name = self.sym_name.data
        if not name:
            raise VerifyException(
                'a function needs a non-empty name: @"" cannot be called, launched '
                "or linked"
            )
        function_type = self.function_type
        outputs = function_type.outputs.data
        if outputs and self.is_kernel:
            raise VerifyException(
                f"kernel @{name} returns {fmt_types(outputs)}; kernels return nothing: "
                "write results through a pointer argument"
            )
        visibility = self.visibility
        if visibility not in ("public", "private", "nested"):
            raise VerifyException(
                f"@{name} has visibility '{visibility}'; expected public, private "
                "or nested"
            )
        entry = self.regions[0].first_block  # `body`, without the accessor's search
        if entry is None:  # a declaration
            if visibility == "public":
                raise VerifyException(
                    f"declaration @{name} cannot be public; mark it private (a symbol "
                    "without a body is defined elsewhere)"
                )
            return
        if value_types(entry.args) != function_type.inputs.data:
            raise VerifyException(
                f"@{name}: entry block argument types {fmt_types(entry.arg_types)} "
                "differ from the parameter types "
                f"{fmt_types(self.function_type.inputs.data)}"
            )

    # Hand-written: the format cannot print the entry block's arguments as the
    # named parameter list (or a declaration's bare types), nor type them.
    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        name = parser.parse_symbol_name().data

        def parse_param() -> Parser.Argument | Attribute:
            arg = parser.parse_optional_argument()
            return arg if arg is not None else parser.parse_type()

        params_pos = pos = parser.pos
        params = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_param)
        named = [p for p in params if isinstance(p, Parser.Argument)]
        if named and len(named) != len(params):
            parser.raise_error(
                "parameters must be all named (%a: T, a definition) or all "
                "unnamed (T, a declaration)",
                pos,
            )
        inputs = (
            [p.type for p in named]
            if named
            else [p for p in params if isinstance(p, Attribute)]
        )
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    outputs = parser.parse_comma_separated_list(
                        parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
            else:
                outputs = [parser.parse_type()]
        role = parse_enum_keyword(parser, Role, "function role")
        inline = None
        if word := parser.parse_optional_keyword_in(("always_inline", "no_inline")):
            inline = InlineHint(word)
        extra = parser.parse_optional_attr_dict_with_keyword(
            ("sym_name", "function_type", "sym_visibility", "role", "inline")
        )
        region = parser.parse_optional_region(named if named else None)
        if region is None:
            check_declaration_end(parser, inline is not None, extra is not None)
        if region is not None and not named and inputs:
            parser.raise_error(
                "a function with a body must name its parameters (%a: T)",
                params_pos,
            )
        op = FuncOp(
            name,
            (inputs, outputs),
            role,
            region if region is not None else Region(),
            visibility=visibility.data if visibility else None,
            inline=inline,
        )
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        if self.sym_visibility:
            printer.print_string(f" {self.sym_visibility.data}")
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        if self.is_declaration:
            printer.print_list(self.function_type.inputs.data, printer.print_attribute)
        else:
            entry = self.body.blocks.first
            assert entry is not None
            printer.print_list(entry.args, printer.print_block_argument)
        printer.print_string(")")
        outputs = self.function_type.outputs.data
        if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
            printer.print_string(" -> ")
            printer.print_attribute(outputs[0])
        elif outputs:
            printer.print_string(" -> (")
            printer.print_list(outputs, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(f" {self.role.data.value}")
        if self.inline:
            printer.print_string(f" {self.inline.data.value}")
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)
        if not self.is_declaration:
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`gpuc.return [%v : T]`: leave the enclosing `gpuc.func`."""

    name = "gpuc.return"
    arguments = var_operand_def()
    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike())
    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        func = self.parent_op()
        assert isinstance(func, FuncOp)
        expected = func.function_type.outputs.data
        # The operands themselves (`arguments` is all of them), not the
        # accessor's search of the op definition: every function has a return.
        if value_types(self._operands) != expected:  # noqa: SLF001
            raise VerifyException(
                f"returns {fmt_types(self.arguments.types)} but @{func.sym_name.data} "
                f"declares results {fmt_types(expected)}"
            )


def resolve_func(op: Operation, callee: SymbolRefAttr, what: str) -> FuncOp:
    """The `gpuc.func` that `callee` names, or a VerifyException saying why not."""
    found = lookup_nearest(op, callee)
    if found is None:
        raise VerifyException(
            f"{what} {callee} does not exist in the enclosing symbol "
            "table; define or declare it (to materialize it as a job, use the "
            "deferred op)"
        )
    if not isinstance(found, FuncOp):
        raise VerifyException(f"{what} {callee} is a '{found.name}', not a gpuc.func")
    return found


class CallSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        callee = resolve_func(op, op.callee, "callee")
        if callee.is_kernel:
            raise VerifyException(
                f"@{callee.sym_name.data} is a kernel and cannot be called; launch it "
                "with gpuc.launch"
            )
        # The operands and results themselves (`arguments` and `res` are all
        # of them), not the accessors' search of the op definition.
        check_signature(
            f"call to @{callee.sym_name.data}",
            value_types(op._operands),  # noqa: SLF001
            value_types(op.results),
            callee.function_type,
        )


@irdl_op_definition
class CallOp(IRDLOperation):
    """`gpuc.call @f(%a) : (T) -> R`: a direct call to a helper."""

    name = "gpuc.call"
    arguments = var_operand_def()
    callee = prop_def(FlatSymbolRefAttrConstr)
    res = var_result_def()
    traits = traits_def(CallSymbolUser())
    assembly_format = (
        "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"
    )

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        arguments: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[arguments],
            result_types=[result_types],
            properties={"callee": callee},
        )


class FuncAddrSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, FuncAddrOp)
        callee = resolve_func(op, op.callee, "function")
        ptr = op.result.type
        assert isinstance(ptr, FuncPtrType)
        if ptr.signature != callee.function_type:
            raise VerifyException(
                f"result type {ptr} does not match @{callee.sym_name.data}'s type "
                f"{callee.function_type}"
            )


@irdl_op_definition
class FuncAddrOp(IRDLOperation):
    """`gpuc.func_addr @f : !gpuc.funcptr<(T) -> R>`: the address of a function."""

    name = "gpuc.func_addr"
    callee = prop_def(FlatSymbolRefAttrConstr)
    result = result_def(FuncPtrType)
    traits = traits_def(FuncAddrSymbolUser())
    assembly_format = "$callee attr-dict `:` type($result)"

    def __init__(self, callee: str | SymbolRefAttr, signature: FunctionType):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            result_types=[FuncPtrType(signature)], properties={"callee": callee}
        )


@irdl_op_definition
class CallIndirectOp(IRDLOperation):
    """`gpuc.call_indirect %fp(%a) : !gpuc.funcptr<(T) -> R>`: an indirect call."""

    name = "gpuc.call_indirect"
    callee = operand_def(FuncPtrType)
    arguments = var_operand_def()
    res = var_result_def()

    def __init__(
        self, callee: SSAValue | Operation, arguments: Sequence[SSAValue | Operation]
    ):
        ptr = SSAValue.get(callee).type
        assert isinstance(ptr, FuncPtrType)
        super().__init__(
            operands=[callee, arguments], result_types=[ptr.signature.outputs.data]
        )

    def verify_(self) -> None:
        ptr = self.callee.type
        assert isinstance(ptr, FuncPtrType)
        check_signature(
            "indirect call", self.arguments.types, self.res.types, ptr.signature
        )

    # Hand-written: the argument and result types come from the callee's
    # !gpuc.funcptr signature, which no constraint reads without checking it.
    @classmethod
    def parse(cls, parser: Parser) -> CallIndirectOp:
        callee, args, attrs = parse_indirect_call(
            parser,
            lambda t: t.signature if isinstance(t, FuncPtrType) else None,
            "a !gpuc.funcptr type",
        )
        op = cls(callee, args)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        print_indirect_call(printer, self.callee, self.arguments, self.attributes)


def parse_indirect_call(
    parser: Parser,
    signature: Callable[[Attribute], FunctionType | None],
    expected: str,
) -> tuple[SSAValue, Sequence[SSAValue], dict[str, Attribute]]:
    """`%f(%a, ...) {attrs} : T`, an indirect call's syntax (gpuc's and
    MLIR's func.call_indirect): the callee and the arguments, typed by T's
    `signature` (None where T is not `expected`), and the attributes."""
    callee = parser.parse_unresolved_operand()
    args = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_unresolved_operand
    )
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    found = signature(t)
    if found is None:
        parser.raise_error(f"expected {expected}, got {t}", pos)
    inputs = found.inputs.data
    if len(inputs) != len(args):
        parser.raise_error(
            f"{len(args)} arguments given but {t} takes {len(inputs)}", pos
        )
    # The callee first: a pointer used with another type than it has is the
    # mismatch to report, at the pointer, before its arguments.
    pointer = parser.resolve_operand(callee, t)
    return pointer, parser.resolve_operands(args, inputs, pos), attrs


def print_indirect_call(
    printer: Printer,
    callee: SSAValue,
    args: Sequence[SSAValue],
    attributes: dict[str, Attribute],
) -> None:
    """What `parse_indirect_call` reads."""
    printer.print_string(" ")
    printer.print_operand(callee)
    printer.print_string("(")
    printer.print_list(args, printer.print_operand)
    printer.print_string(")")
    if attributes:
        printer.print_string(" ")
        printer.print_attr_dict(attributes)
    printer.print_string(" : ")
    printer.print_attribute(callee.type)


class LaunchShaped(Protocol):
    """What both launch ops have: grid and block sizes, shared bytes, arguments."""

    @property
    def grid(self) -> VarOperand: ...
    @property
    def block(self) -> VarOperand: ...
    @property
    def shared(self) -> VarOperand: ...
    @property
    def args(self) -> VarOperand: ...


@irdl_custom_directive
class CallSignature(CustomDirective):
    """`(T, ..) -> R`, the argument and result types; an argument count that
    differs is an error at the type (the format itself would report it after
    the op)."""

    args: VariadicOperandVariable
    arg_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        signature = parser.parse_function_type()
        args, inputs = state.operands[self.args.index], signature.inputs.data
        assert args is not None
        if len(args) != len(inputs):
            parser.raise_error(
                f"expected {len(inputs)} operand types but had {len(args)}", pos
            )
        self.arg_types.set(state, inputs)
        self.result_types.set(state, signature.outputs.data)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(
            FunctionType.from_lists(self.arg_types.get(op), self.result_types.get(op))
        )


@irdl_custom_directive
class KernelArgTypes(CustomDirective):
    """`(T, ..)`, one type per kernel argument; a count that differs is an error at
    the types (the format itself would report it after the op)."""

    args: VariadicOperandVariable
    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        types = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_type
        )
        args = state.operands[self.args.index]
        assert args is not None
        if len(args) != len(types):
            parser.raise_error(
                f"{len(args)} kernel arguments given but {len(types)} types", pos
            )
        self.types.set(state, types)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        with printer.in_parens():
            printer.print_list(self.types.get(op), printer.print_attribute)


LAUNCH_CONFIG = (
    "`grid` `(` $grid `)` `block` `(` $block `)` (`shared` `(` $shared^ `)`)? "
    "`(` $args `)`"
)
"""The `grid(..) block(..) [shared(..)] (args)` syntax of both launch ops; their
types follow as `custom<KernelArgTypes>(ref($args), type($args))`."""


class LaunchSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, LaunchOp)
        kernel = resolve_func(op, op.kernel, "kernel")
        if not kernel.is_kernel:
            raise VerifyException(
                f"@{kernel.sym_name.data} is a helper; only kernels can be launched "
                "(call helpers with gpuc.call)"
            )
        check_signature(
            f"launch of @{kernel.sym_name.data}",
            op.args.types,
            (),
            kernel.function_type,
        )


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """`gpuc.launch @k grid(%gx) block(%bx) [shared(%bytes)] (%a) : (T)`.

    A device-side launch of a child kernel: 1-3 grid and block sizes (missing
    dimensions are 1), optional dynamic shared-memory bytes, kernel arguments.
    """

    name = "gpuc.launch"
    kernel = prop_def(FlatSymbolRefAttrConstr)
    grid = var_operand_def(IndexType)
    block = var_operand_def(IndexType)
    shared = var_operand_def(IndexType)
    args = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(LaunchSymbolUser())
    custom_directives = (KernelArgTypes,)
    assembly_format = (
        f"$kernel {LAUNCH_CONFIG} attr-dict `:` "
        "custom<KernelArgTypes>(ref($args), type($args))"
    )

    def __init__(
        self,
        kernel: str | SymbolRefAttr,
        grid: Sequence[SSAValue | Operation],
        block: Sequence[SSAValue | Operation],
        args: Sequence[SSAValue | Operation],
        shared: SSAValue | Operation | None = None,
    ):
        if isinstance(kernel, str):
            kernel = SymbolRefAttr(kernel)
        super().__init__(
            operands=[grid, block, [shared] if shared is not None else [], args],
            properties={"kernel": kernel},
        )

    def verify_(self) -> None:
        verify_launch_shape(self)


def verify_launch_shape(op: LaunchShaped) -> None:
    for what, values in (("grid", op.grid), ("block", op.block)):
        if not 1 <= len(values) <= 3:
            raise VerifyException(
                f"{what} takes 1 to 3 sizes (x, y, z), got {len(values)}"
            )
    if len(op.shared) > 1:
        raise VerifyException("at most one dynamic shared-memory size")
