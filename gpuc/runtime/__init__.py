"""Executors: run compiled kernels on numpy arrays, one executor per target.

Each executor takes the code its target emits (`code_field` names the
`CompileResult` field) and the kernels' signatures, and offers
`launch(name, grid, block, args)`. They are imported only when a module is
first launched, so compiling never pays for pyopencl, llvmlite's JIT or the
CUDA driver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gpuc.registry import lazy
from gpuc.runtime.args import KernelSignature, LaunchError

# Target name -> "module:executor class".
EXECUTORS: dict[str, str] = {
    "native": "gpuc.runtime.native:NativeExecutor",
    "spirv": "gpuc.runtime.opencl:OpenCLExecutor",
    "ptx": "gpuc.runtime.cuda:CudaExecutor",
}


# Target name -> what `device=` picks for its executor (None: it takes none).
DEVICES: dict[str, tuple[type, str] | None] = {
    "native": None,
    "spirv": (str, "a fragment of an OpenCL device's name"),
    "ptx": (int, "a CUDA device ordinal"),
}


def check_device(target: str, device: object) -> None:
    """A LaunchError unless `device` is something `target`'s executor takes."""
    if device is None or target not in DEVICES:
        return
    wanted = DEVICES[target]
    if wanted is None:
        raise LaunchError(
            f"the {target} executor runs in this process and takes no device; "
            f"got device={device!r}"
        )
    kind, what = wanted
    if isinstance(device, bool) or not isinstance(device, kind):
        raise LaunchError(
            f"the {target} executor's device is {what} ({kind.__name__}), "
            f"got device={device!r}"
        )


class Executor(Protocol):
    kernels: dict[str, KernelSignature]

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None: ...


def executor_class(target: str) -> Any:
    """The executor class that runs `target`'s code, or a LaunchError."""
    if target not in EXECUTORS:
        raise LaunchError(
            f"no executor runs target '{target}' (executors: {', '.join(EXECUTORS)})"
        )
    return lazy(EXECUTORS[target])()


def make_executor(
    target: str, code: Any, kernels: Mapping[str, KernelSignature], **options: Any
) -> Executor:
    executor: Executor = executor_class(target)(code, kernels, **options)
    return executor
