"""The finalization schedule on its own: it visits the kernels of the
entrypoint set, in its order, and nothing else; a recording target proves
which functions `finalize-kernels` hands to `Target.finalize_kernel`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

import gpuc.targets
from gpuc.context import make_context
from gpuc.dialects.attrs import TARGET_ATTR
from gpuc.dialects.functions import FuncOp
from gpuc.targets.base import Target
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
    """Records every kernel it is asked to finalize and every module verified."""

    name: ClassVar[str] = "recording"
    finalized: ClassVar[list[str]] = []
    verified: ClassVar[list[ModuleOp]] = []

    def finalize_kernel(self, module: ModuleOp, kernel: FuncOp) -> None:
        self.finalized.append(kernel.sym_name.data)

    def verify_module(self, module: ModuleOp) -> None:
        self.verified.append(module)


@pytest.fixture(autouse=True)
def recording_target(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(
        gpuc.targets.TARGETS, "recording", f"{__name__}:RecordingTarget"
    )
    RecordingTarget.finalized.clear()
    RecordingTarget.verified.clear()
    yield


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


def parse() -> ModuleOp:
    return Parser(make_context(), MODULE).parse_module()


def test_schedule_is_the_kernels_of_the_entrypoint_set() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["exported"]))
    schedule = [k.sym_name.data for k in finalization_schedule(module)]
    kernels_in_set = [name for name in read_entrypoints(module) if name.startswith("k")]
    assert schedule == kernels_in_set == ["k2", "k1"]


def test_finalize_visits_exactly_the_schedule() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["exported"]))
    finalize_kernels(module, "recording")
    assert RecordingTarget.finalized == ["k2", "k1"]


def test_a_kernel_outside_the_set_is_not_finalized() -> None:
    """The schedule follows the recorded set, not the roles in the module."""
    module = parse()
    write_entrypoints(module, ["k1", "exported"])
    FinalizeKernels(target="recording").apply(make_context(), module)
    assert RecordingTarget.finalized == ["k1"]


def test_the_module_target_is_used_without_an_option() -> None:
    module = parse()
    module.attributes[TARGET_ATTR] = StringAttr("recording")
    write_entrypoints(module, ["k2"])
    FinalizeKernels().apply(make_context(), module)
    VerifyTarget().apply(make_context(), module)
    assert RecordingTarget.finalized == ["k2"]
    assert RecordingTarget.verified == [module]


def test_an_entrypoint_that_vanished_is_a_diagnostic() -> None:
    module = parse()
    write_entrypoints(module, ["gone"])
    with pytest.raises(
        DiagnosticException, match="entrypoint @gone .* is not in the module"
    ):
        finalize_kernels(module, "recording")


def test_an_unknown_target_is_a_diagnostic() -> None:
    module = parse()
    write_entrypoints(module, ["k1"])
    with pytest.raises(DiagnosticException, match="unknown target 'tpu'"):
        finalize_kernels(module, "tpu")


def test_without_a_set_finalization_says_what_to_run() -> None:
    with pytest.raises(DiagnosticException, match="run classify-entrypoints first"):
        finalize_kernels(parse(), "recording")
