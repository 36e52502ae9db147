"""gpuc's verifier (gpuc/verifier.py) decides as xDSL's `Operation.verify` does
on every module piece in the repository, valid and invalid, and a module it
rejects is reported with xDSL's located diagnostic."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects.arith import AddfOp, ConstantOp
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerType, ModuleOp, f32
from xdsl.ir import Block, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, region_def, traits_def
from xdsl.traits import NoTerminator

from gpuc.context import make_context
from gpuc.diagnostics import OpError, verify_located
from gpuc.dialects.functions import FuncOp
from gpuc.driver import load_module
from gpuc.reader.text import ForeignParser
from gpuc.verifier import verifies

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from scale import gpuc_kernel, module_text  # noqa: E402

PIECES = [
    (path, n, piece)
    for path in sorted(
        [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/filecheck/**/*.mlir")]
    )
    for n, piece in enumerate(re.split(r"(?m)^// -----.*$", path.read_text()))
]


def xdsl_verifies(module: ModuleOp) -> bool:
    try:
        module.verify()
    except Exception:
        return False
    return True


def assert_rejected(module: ModuleOp, name: str) -> None:
    """Both verifiers say no, and the diagnostic names the op `name`."""
    assert not verifies(module)
    assert not xdsl_verifies(module)
    with pytest.raises(OpError, match=name):
        verify_located(module)


def test_it_decides_as_xdsl_on_every_module_in_the_repository() -> None:
    decided = {True: 0, False: 0}
    for path, n, piece in PIECES:
        try:
            module = ForeignParser(make_context(), piece, str(path), 0).parse_module(
                True
            )
        except Exception:
            continue  # a parse error case, or a dialect the parser lacks
        expected = xdsl_verifies(module)
        assert verifies(module) == expected, f"{path} piece {n}"
        decided[expected] += 1
    # Both answers are exercised, on many modules.
    assert decided[True] > 200 and decided[False] > 100, decided


def test_a_changed_shape_is_checked_again() -> None:
    module = load_module(module_text(2, gpuc_kernel))
    assert verifies(module)
    constant = next(op for op in module.walk() if isinstance(op, ConstantOp))
    # The same op class and types elsewhere in the module passed: a result
    # whose type no longer matches the value fails all the same.
    constant.results[0]._type = IntegerType(32)  # pyright: ignore[reportPrivateUsage]
    assert_rejected(module, "arith.constant")


def test_an_operand_of_a_type_its_op_refuses_fails() -> None:
    module = load_module(module_text(2, gpuc_kernel))
    add = next(op for op in module.walk() if isinstance(op, AddfOp))
    index = next(
        op.results[0]
        for op in module.walk()
        if op.results and isinstance(op.results[0].type, IndexType)
    )
    assert add.lhs.type == f32
    add.operands = [index, add.rhs]
    assert not verifies(module)
    with pytest.raises(OpError, match="arith.addf"):
        verify_located(module)


def test_a_yield_under_a_function_fails_though_its_shape_passed_under_an_if() -> None:
    """HasParent runs once per shape, the parent op's class part of it: a
    `scf.yield` ending a kernel is another shape than the scf.if's."""
    from xdsl.dialects.scf import YieldOp

    module = load_module(module_text(2, gpuc_kernel))
    kernel = next(op for op in module.ops if isinstance(op, FuncOp))
    returned = kernel.body.block.last_op
    assert returned is not None and not returned.operands
    returned.detach()
    returned.erase()
    kernel.body.block.add_op(YieldOp())
    assert_rejected(module, "scf.yield")


def test_a_terminator_before_the_end_of_its_block_fails() -> None:
    """IsTerminator, which the walk checks as it meets each op."""
    from xdsl.dialects.scf import IfOp, YieldOp

    module = load_module(module_text(2, gpuc_kernel))
    branch = next(op for op in module.walk() if isinstance(op, IfOp)).true_region
    first = branch.block.first_op
    assert first is not None
    branch.block.insert_op_after(YieldOp(), first)
    assert_rejected(module, "scf.yield")


def test_an_if_ending_in_another_terminator_fails_though_its_shape_passed() -> None:
    """SingleBlockImplicitTerminator runs once per shape, the class of each
    block's last op part of it: a scf.if whose branch ends with a terminator
    other than scf.yield is another shape than the ones that pass."""
    from xdsl.dialects.scf import IfOp
    from xdsl.dialects.test import TestTermOp

    module = load_module(module_text(2, gpuc_kernel))
    # The second kernel's: the first's shape passed before it is met.
    branch = [op for op in module.walk() if isinstance(op, IfOp)][-1].true_region
    yielded = branch.block.last_op
    assert yielded is not None
    yielded.detach()
    yielded.erase()
    branch.block.add_op(TestTermOp.create())
    assert_rejected(module, "scf.if")


def _kernel_and_a_constant() -> tuple[ModuleOp, FuncOp, ConstantOp]:
    """A module, its first kernel, and a constant of a helper."""
    module = load_module(module_text(2, gpuc_kernel))
    kernel = next(op for op in module.ops if isinstance(op, FuncOp))
    constant = next(op for op in module.walk() if isinstance(op, ConstantOp))
    assert kernel.is_kernel and not kernel.is_ancestor(constant)
    return module, kernel, constant


def test_an_operand_from_another_function_fails() -> None:
    """IsolatedFromAbove, which the walk checks as it meets each operand."""
    module, last, constant = _kernel_and_a_constant()
    terminator = last.body.blocks[0].last_op
    assert terminator is not None
    last.body.blocks[0].insert_op_before(AddfOp(constant, constant), terminator)
    assert not verifies(module)
    assert not xdsl_verifies(module)
    with pytest.raises(OpError, match="arith.addf"):
        verify_located(module)


@irdl_op_definition
class WholeOp(IRDLOperation):
    """An op that verifies itself whole, nested ops included."""

    name = "test.whole"
    body = region_def()
    traits = traits_def(NoTerminator())

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)


@pytest.mark.parametrize("outside", [True, False])
def test_an_operand_under_an_op_verified_whole_is_checked(outside: bool) -> None:
    """The walk does not see the operands under an op that verifies itself
    whole: the function's isolation is then checked by a walk of its own."""
    module, last, constant = _kernel_and_a_constant()
    if not outside:
        constant = ConstantOp(FloatAttr(1.0, f32))
        last.body.blocks[0].insert_op_before(constant, last.body.blocks[0].first_op)
    terminator = last.body.blocks[0].last_op
    assert terminator is not None
    whole = WholeOp.create(regions=[Region(Block([AddfOp(constant, constant)]))])
    last.body.blocks[0].insert_op_before(whole, terminator)
    assert xdsl_verifies(module) is not outside
    assert verifies(module) is not outside
