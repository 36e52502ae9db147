"""Deferred ops: "compile this source as its own job, then call / address / launch it".

Each names a job source by symbol and carries a `#gpuc.job` configuration. The
source may live in a library or come from a generator, so whether it exists is
the resolver's question (`resolve-deferred`), not the verifier's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias, cast

from xdsl.dialects.builtin import (
    AnyFloat,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from gpuc.dialects.attrs import FuncPtrType, JobAttr, Role
from gpuc.dialects.functions import (
    LAUNCH_CONFIG,
    CallSignature,
    KernelArgTypes,
    verify_launch_shape,
)
from gpuc.dialects.walk import ops_of_classes


@irdl_custom_directive
class JobConfig(CustomDirective):
    """The `#gpuc.job<...>` configuration; another attribute is an error at the
    attribute (with `qualified($job)` it would be a constraint failure at the op)."""

    job: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        job = parser.parse_attribute()
        if not isinstance(job, JobAttr):
            parser.raise_error(
                f"expected a #gpuc.job<...> configuration, got {job}", pos
            )
        self.job.set(state, job)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        job = self.job.get(op)
        assert job is not None
        state.print_whitespace(printer)
        printer.print_attribute(job)


@irdl_op_definition
class DeferredCallOp(IRDLOperation):
    """`gpuc.deferred_call @src(%a) #gpuc.job<helper> : (T) -> R`."""

    name = "gpuc.deferred_call"
    source = prop_def(FlatSymbolRefAttrConstr)
    job = prop_def(JobAttr)
    arguments = var_operand_def()
    res = var_result_def()
    custom_directives = (JobConfig, CallSignature)
    assembly_format = (
        "$source `(` $arguments `)` custom<JobConfig>($job) attr-dict `:` "
        "custom<CallSignature>(ref($arguments), type($arguments), type($res))"
    )

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
    custom_directives = (JobConfig,)
    assembly_format = "$source custom<JobConfig>($job) attr-dict `:` type($result)"

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
    custom_directives = (JobConfig, KernelArgTypes)
    assembly_format = (
        f"$source {LAUNCH_CONFIG} custom<JobConfig>($job) attr-dict `:` "
        "custom<KernelArgTypes>(ref($args), type($args))"
    )

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


@irdl_op_definition
class DeferredKernelOp(IRDLOperation):
    """A kernel the host launches whose body is one helper job.

    `gpuc.deferred_kernel @name = @src #gpuc.job<helper, ...> : (T) -> (R)`

    `resolve-deferred` replaces it with the kernel `@name`: its parameters are
    the job's, then one `!gpuc.ptr<R, global>` per result of the job; each
    thread calls the job with its arguments and adds each result into its
    pointer's element 0 atomically. This is how the host launches a kernel's
    derivative (docs/autodiff.md): the job of an `autodiff` generator on a
    kernel, with the kernel's grid.
    """

    name = "gpuc.deferred_kernel"
    sym_name = prop_def(SymbolNameConstraint())
    source = prop_def(FlatSymbolRefAttrConstr)
    job = prop_def(JobAttr)
    function_type = prop_def(FunctionType)
    traits = traits_def(SymbolOpInterface())
    custom_directives = (JobConfig,)
    assembly_format = (
        "$sym_name `=` $source custom<JobConfig>($job) attr-dict `:` $function_type"
    )

    def __init__(
        self,
        name: str,
        source: str | SymbolRefAttr,
        job: JobAttr,
        signature: FunctionType,
    ):
        if isinstance(source, str):
            source = SymbolRefAttr(source)
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "source": source,
                "job": job,
                "function_type": signature,
            }
        )

    @property
    def signature(self) -> FunctionType:
        return self.function_type

    def verify_(self) -> None:
        if self.job.job_role != Role.HELPER:
            raise VerifyException(
                "a deferred kernel's job must be a helper (#gpuc.job<helper, ...>): "
                "the kernel calls it; to launch a kernel job from the device use "
                "gpuc.deferred_launch"
            )
        for t in self.function_type.outputs.data:
            if not isinstance(t, IntegerType | AnyFloat):
                raise VerifyException(
                    f"the job returns {t}; a deferred kernel adds each result into "
                    "a pointer atomically, so results are integers or floats"
                )


DeferredOp: TypeAlias = DeferredCallOp | DeferredAddrOp | DeferredLaunchOp


DEFERRED_OPS = (DeferredCallOp, DeferredAddrOp, DeferredLaunchOp)
"""The classes of `DeferredOp`."""


def deferred_ops(op: Operation) -> list[DeferredOp]:
    """The deferred ops in `op` (itself included), in walk order."""
    (found,) = ops_of_classes(op, DEFERRED_OPS)
    return cast(list[DeferredOp], found)


"""Any deferred op; `isinstance(op, DeferredOp)` asks whether `op` is one."""
