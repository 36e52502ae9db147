"""Executors: run compiled kernels on numpy arrays. Each target names its
executor (`Target.executor`) and the device kind it takes (`Target.device`).

An executor takes the code its target emits (`code_field` names the
`CompileResult` field) and the kernels' signatures (each kernel looked up by
the symbol its finalization record gives), and offers
`launch(name, grid, block, args)`. Executors are imported only when a module
is first launched, so compiling never pays for pyopencl, llvmlite's JIT or the
CUDA driver.

An executor with device memory of its own (spirv, ptx, amdgpu) also offers
what `DeviceArrays` lists, and its `launch` takes `stream=` and `shared=`;
the Python API gives an executor without them (native) host arrays and
synchronous streams (`gpuc.runtime.arrays.HostArrays`). docs/arrays.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol

from gpuc.runtime.launch_types import LaunchError

if TYPE_CHECKING:
    from gpuc.runtime.args import KernelSignature
    from gpuc.targets.base import Target


def check_device(target: type[Target] | Target, device: object) -> None:
    """A LaunchError unless `device` is something `target`'s executor takes."""
    if device is None:
        return
    wanted = target.device
    if wanted is None:
        raise LaunchError(
            f"the {target.name} executor takes no device; got device={device!r}"
        )
    kind, what = wanted
    if isinstance(device, bool) or not isinstance(device, kind):
        raise LaunchError(
            f"the {target.name} executor's device is {what} ({kind.__name__}), "
            f"got device={device!r}"
        )


class Executor(Protocol):
    kernels: dict[str, KernelSignature]

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None: ...


class DeviceArrays(Protocol):
    """What an executor with its own device memory offers besides `launch`."""

    def to_device(self, host: Any, stream: Any = None) -> Any: ...

    def empty(self, shape: object, dtype: object) -> Any: ...

    def stream(self) -> Any: ...

    def synchronize(self) -> None: ...


def executor_class(target: type[Target] | Target) -> Any:
    """The executor class that runs `target`'s code, or a LaunchError."""
    if target.executor is None:
        raise LaunchError(
            f"the {target.name} target has no executor: its artefact can be "
            "written (gpuc compile) but not launched from gpuc"
        )
    module, _, attribute = target.executor.partition(":")
    return getattr(import_module(module), attribute)
