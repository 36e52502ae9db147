"""The finalization schedule on its own: it visits the kernels of the
entrypoint set, in its order, and nothing else; a recording target proves
which functions `finalize-kernels` hands to `Target.finalize_kernel`, that
each gets the record the target returns, and that the pass and verify-target
ask the module's `#gpuc.target` (set by `attach-target`) which target that is."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from gpuc.context import make_context
from gpuc.dialects.analysis import KernelFacts
from gpuc.dialects.attrs import FINALIZED_ATTR, TARGET_ATTR, FinalizedAttr, TargetAttr
from gpuc.dialects.functions import FuncOp
from gpuc.targets import register_target, unregister_target
from gpuc.targets.base import Target
from gpuc.transforms.attach_target import AttachTarget
from gpuc.transforms.classify_entrypoints import (
    compute_entrypoints,
    read_entrypoints,
    write_entrypoints,
)
from gpuc.transforms.finalize_kernels import (
    FinalizeKernels,
    finalization_schedule,
    finalize_kernels,
)
from gpuc.transforms.verify_target import VerifyTarget


@dataclass(frozen=True)
class RecordingTarget(Target):
    """Records every kernel it is asked to finalize and every module verified;
    a kernel's record names it `<kernel>.recorded`."""

    name: ClassVar[str] = "recording"
    finalized: ClassVar[list[str]] = []
    verified: ClassVar[list[ModuleOp]] = []

    def finalize_kernel(self, kernel: FuncOp, facts: KernelFacts) -> FinalizedAttr:
        self.finalized.append(kernel.sym_name.data)
        return FinalizedAttr(f"{kernel.sym_name.data}.recorded", barrier=True)

    def verify_module(self, module: ModuleOp) -> None:
        self.verified.append(module)


@pytest.fixture(autouse=True)
def recording_target() -> Iterator[None]:
    register_target(RecordingTarget)
    RecordingTarget.finalized.clear()
    RecordingTarget.verified.clear()
    yield
    unregister_target("recording")


MODULE = """
gpuc.func @k2() kernel {
  gpuc.return
}
gpuc.func @exported() helper {
  gpuc.return
}
gpuc.func @k1() kernel {
  gpuc.return
}
gpuc.func private @decl() kernel
builtin.module @m {
  gpuc.func @nested() kernel {
    gpuc.return
  }
}
"""


def parse(text: str = MODULE, target: str | None = "recording") -> ModuleOp:
    """The module, configured for `target` by attach-target (None: not at all)."""
    module = Parser(make_context(), text).parse_module()
    if target is not None:
        AttachTarget(target).apply(make_context(), module)
    return module


def records(module: ModuleOp) -> dict[str, FinalizedAttr]:
    found: dict[str, FinalizedAttr] = {}
    for op in module.walk():
        if isinstance(op, FuncOp) and FINALIZED_ATTR in op.attributes:
            record = op.attributes[FINALIZED_ATTR]
            assert isinstance(record, FinalizedAttr)
            found[op.sym_name.data] = record
    return found


def test_schedule_is_the_kernels_of_the_entrypoint_set() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["exported"]))
    schedule = [k.sym_name.data for k in finalization_schedule(module)]
    kernels_in_set = [name for name in read_entrypoints(module) if name.startswith("k")]
    assert schedule == kernels_in_set == ["k2", "k1"]


def test_finalize_visits_exactly_the_schedule() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["exported"]))
    finalize_kernels(module)
    assert RecordingTarget.finalized == ["k2", "k1"]


def test_each_kernel_gets_the_record_its_target_returned() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["exported"]))
    finalize_kernels(module)
    assert records(module) == {
        "k2": FinalizedAttr("k2.recorded", barrier=True),
        "k1": FinalizedAttr("k1.recorded", barrier=True),
    }


def test_a_kernel_outside_the_set_is_not_finalized() -> None:
    """The schedule follows the recorded set, not the roles in the module."""
    module = parse()
    write_entrypoints(module, ["k1", "exported"])
    FinalizeKernels().apply(make_context(), module)
    assert RecordingTarget.finalized == ["k1"]
    assert set(records(module)) == {"k1"}


def test_the_module_target_is_used_without_an_option() -> None:
    """`#gpuc.target<recording>` written in the module selects the target of
    finalize-kernels and verify-target; neither takes a target option."""
    text = (
        f"builtin.module attributes {{{TARGET_ATTR} = #gpuc.target<recording>}} {{"
        f"{MODULE}}}"
    )
    module = parse(text, target=None)
    assert module.attributes[TARGET_ATTR] == TargetAttr("recording")
    write_entrypoints(module, ["k2"])
    FinalizeKernels().apply(make_context(), module)
    VerifyTarget().apply(make_context(), module)
    assert RecordingTarget.finalized == ["k2"]
    assert RecordingTarget.verified == [module]


def test_attach_target_keeps_the_module_target() -> None:
    """An empty attach-target keeps the module's own target."""
    module = parse()
    AttachTarget().apply(make_context(), module)
    assert module.attributes[TARGET_ATTR] == TargetAttr("recording")


def test_without_a_target_the_default_target_finalizes() -> None:
    module = parse(target=None)
    write_entrypoints(module, ["k1"])
    finalize_kernels(module)
    assert RecordingTarget.finalized == []
    assert records(module)["k1"].symbol.data == "k1"


def test_an_entrypoint_that_vanished_is_a_diagnostic() -> None:
    module = parse()
    write_entrypoints(module, ["gone"])
    with pytest.raises(
        DiagnosticException, match="entrypoint @gone .* is not in the module"
    ):
        finalize_kernels(module)


def test_an_unknown_target_is_a_diagnostic() -> None:
    module = parse(target=None)
    module.attributes[TARGET_ATTR] = TargetAttr("tpu")
    write_entrypoints(module, ["k1"])
    with pytest.raises(
        DiagnosticException, match="unknown target 'tpu'; expected one of: .*recording"
    ):
        finalize_kernels(module)
    with pytest.raises(DiagnosticException, match="unknown target 'tpu'"):
        AttachTarget("tpu").apply(make_context(), parse(target=None))


def test_an_unregistered_target_is_unknown_again() -> None:
    """Even for a module whose target was looked up before."""
    module = parse()
    VerifyTarget().apply(make_context(), module)
    unregister_target("recording")
    write_entrypoints(module, ["k1"])
    with pytest.raises(DiagnosticException, match="unknown target 'recording'"):
        finalize_kernels(module)


def test_without_a_set_finalization_says_what_to_run() -> None:
    with pytest.raises(DiagnosticException, match="run classify-entrypoints first"):
        finalize_kernels(parse())
