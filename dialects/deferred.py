"""Deferred ops: "compile this source as its own job, then call / address / launch it".

Each names a job source by symbol and carries a `#gpuc.job` configuration. The
source may live in a library or come from a generator, so whether it exists is
the resolver's question (`resolve-deferred`), not the verifier's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import FuncPtrType, JobAttr, Role
from gpuc.dialects.functions import LaunchConfig, verify_launch_shape


def parse_job(parser: Parser) -> JobAttr:
    pos = parser.pos
    job = parser.parse_attribute()
    if not isinstance(job, JobAttr):
        parser.raise_error(f"expected a #gpuc.job<...> configuration, got {job}", pos)
    return job


@irdl_op_definition
class DeferredCallOp(IRDLOperation):
    """`gpuc.deferred_call @src(%a) #gpuc.job<helper> : (T) -> R`."""

    name = "gpuc.deferred_call"
    source = prop_def(FlatSymbolRefAttrConstr)
    job = prop_def(JobAttr)
    arguments = var_operand_def()
    res = var_result_def()

    def __init__(
        self,
        source: str | SymbolRefAttr,
        job: JobAttr,
        arguments: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
    ):
        if isinstance(source, str):
            source = SymbolRefAttr(source)
        super().__init__(
            operands=[arguments],
            result_types=[result_types],
            properties={"source": source, "job": job},
        )

    @property
    def signature(self) -> FunctionType:
        return FunctionType.from_lists(self.arguments.types, self.res.types)

    @classmethod
    def parse(cls, parser: Parser) -> DeferredCallOp:
        source = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        job = parse_job(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        signature = parser.parse_function_type()
        op = cls(
            SymbolRefAttr(source),
            job,
            parser.resolve_operands(args, signature.inputs.data, pos),
            signature.outputs.data,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.source.root_reference.data)
        printer.print_string("(")
        printer.print_list(self.arguments, printer.print_operand)
        printer.print_string(") ")
        print_job_trailer(printer, self)
        printer.print_attribute(self.signature)

    def verify_(self) -> None:
        if self.job.job_role != Role.HELPER:
            raise VerifyException(
                "a deferred call's job must be a helper (#gpuc.job<helper, ...>); "
                "to start a child kernel use gpuc.deferred_launch"
            )


@irdl_op_definition
class DeferredAddrOp(IRDLOperation):
    """`gpuc.deferred_addr @src #gpuc.job<helper> : !gpuc.funcptr<(T) -> R>`."""

    name = "gpuc.deferred_addr"
    source = prop_def(FlatSymbolRefAttrConstr)
    job = prop_def(JobAttr)
    result = result_def(FuncPtrType)

    def __init__(
        self, source: str | SymbolRefAttr, job: JobAttr, signature: FunctionType
    ):
        if isinstance(source, str):
            source = SymbolRefAttr(source)
        super().__init__(
            result_types=[FuncPtrType(signature)],
            properties={"source": source, "job": job},
        )

    @property
    def signature(self) -> FunctionType:
        signature: FunctionType = self.result.type.signature
        return signature

    @classmethod
    def parse(cls, parser: Parser) -> DeferredAddrOp:
        source = parser.parse_symbol_name()
        job = parse_job(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ptr = parser.parse_type()
        if not isinstance(ptr, FuncPtrType):
            parser.raise_error(f"expected a !gpuc.funcptr type, got {ptr}", pos)
        op = cls(SymbolRefAttr(source), job, ptr.signature)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.source.root_reference.data)
        printer.print_string(" ")
        print_job_trailer(printer, self)
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if self.job.job_role == Role.KERNEL and self.signature.outputs.data:
            raise VerifyException(
                "the address of a kernel job must have a signature without results"
            )


@irdl_op_definition
class DeferredLaunchOp(IRDLOperation):
    """A device-side launch of a child kernel compiled as its own job.

    `gpuc.deferred_launch @src grid(..) block(..) [shared(..)] (%a)
    #gpuc.job<kernel> : (T)`
    """

    name = "gpuc.deferred_launch"
    source = prop_def(FlatSymbolRefAttrConstr)
    job = prop_def(JobAttr)
    grid = var_operand_def(IndexType)
    block = var_operand_def(IndexType)
    shared = var_operand_def(IndexType)
    args = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: str | SymbolRefAttr,
        job: JobAttr,
        grid: Sequence[SSAValue | Operation],
        block: Sequence[SSAValue | Operation],
        args: Sequence[SSAValue | Operation],
        shared: SSAValue | Operation | None = None,
    ):
        if isinstance(source, str):
            source = SymbolRefAttr(source)
        super().__init__(
            operands=[grid, block, [shared] if shared is not None else [], args],
            properties={"source": source, "job": job},
        )

    @property
    def signature(self) -> FunctionType:
        return FunctionType.from_lists(self.args.types, ())

    def verify_(self) -> None:
        verify_launch_shape(self)
        if self.job.job_role != Role.KERNEL:
            raise VerifyException(
                "a deferred launch's job must be a kernel (#gpuc.job<kernel>); "
                "to call a helper use gpuc.deferred_call"
            )

    @classmethod
    def parse(cls, parser: Parser) -> DeferredLaunchOp:
        source = parser.parse_symbol_name()
        parsed = LaunchConfig.parse(parser)
        job = parse_job(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        types = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_type
        )
        grid, block, shared, args = LaunchConfig.resolve(parser, parsed, types, pos)
        op = cls(
            SymbolRefAttr(source), job, grid, block, args, shared[0] if shared else None
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.source.root_reference.data)
        LaunchConfig.print(printer, self)
        printer.print_string(" ")
        printer.print_attribute(self.job)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        LaunchConfig.print_types(printer, self)


def print_job_trailer(printer: Printer, op: DeferredCallOp | DeferredAddrOp) -> None:
    """Print `#gpuc.job<..> [{attrs}] : ` (the type follows)."""
    printer.print_attribute(op.job)
    if op.attributes:
        printer.print_string(" ")
        printer.print_attr_dict(op.attributes)
    printer.print_string(" : ")
