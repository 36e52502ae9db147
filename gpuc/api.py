"""The Python API: compile a module and launch its kernels on numpy arrays.

    mod = gpuc.compile("examples/saxpy.mlir", target="native")
    mod.launch("saxpy", grid=(g,), block=(b,), args=(a, x, y, n))
    mod["saxpy"][g, b](a, x, y, n)

Compiling never touches a device; the target's executor (gpuc/runtime/) is
created on the first launch, so a module can be compiled for `ptx` on a
machine without a GPU and inspected (`mod.artefact`, `mod.llvm_ir`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gpuc.runtime.args import KernelSignature, LaunchError, Param

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from gpuc.driver import CompileResult, KernelInfo
    from gpuc.runtime import Executor


def _param(name: str, attr: Attribute) -> Param:
    from gpuc.dialects.attrs import PtrType

    if isinstance(attr, PtrType):
        return Param(name, str(attr.element), attr.address_space.value)
    return Param(name, str(attr))


def signature(info: KernelInfo) -> KernelSignature:
    """The executor-facing signature of a kernel the compiler reported."""
    names = (
        [str(n) for n in info.param_names]
        if all(info.param_names)
        else [f"arg{i}" for i in range(len(info.params))]
    )
    return KernelSignature(
        info.name,
        tuple(_param(n, t) for n, t in zip(names, info.params, strict=True)),
        info.uses_barrier,
        info.static_shared_bytes,
        info.symbol,
        info.block_size,
    )


class UnknownKernel(LaunchError, KeyError):
    """A kernel name the module does not have, from `mod.launch` or `mod[name]`:
    a LaunchError, and a KeyError as a missing key of a mapping is."""

    def __str__(self) -> str:
        return BaseException.__str__(self)  # KeyError's quotes the message


class Kernel:
    """One kernel of a compiled module; `kernel[grid, block](*args)` launches it."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        self.signature = module.signatures[name]

    def __getitem__(self, config: tuple[object, object]) -> _Configured:
        if not isinstance(config, tuple) or len(config) != 2:
            raise LaunchError(
                f"kernel '{self.name}': launch it as kernel[grid, block](*args), "
                f"got kernel[{config!r}]"
            )
        return _Configured(self, config[0], config[1])

    def __call__(self, *args: object) -> None:
        raise LaunchError(
            f"kernel '{self.name}' needs a launch configuration: "
            f"mod['{self.name}'][grid, block](*args)"
        )

    def __repr__(self) -> str:
        params = ", ".join(f"{p.name}: {p.spelling}" for p in self.signature.params)
        return f"<gpuc kernel {self.name}({params})>"


class _Configured:
    def __init__(self, kernel: Kernel, grid: object, block: object) -> None:
        self.kernel, self.grid, self.block = kernel, grid, block

    def __call__(self, *args: object) -> None:
        self.kernel.module.launch(
            self.kernel.name, grid=self.grid, block=self.block, args=args
        )


class Module:
    """A compiled module: the compiler's outputs, and its kernels, launchable."""

    def __init__(self, result: CompileResult, device: str | int | None = None) -> None:
        self.result = result
        self.target: str = result.target.name
        self.llvm_ir: str = result.llvm_ir
        self.artefact: bytes | str = result.artefact
        self.signatures: dict[str, KernelSignature] = {
            name: signature(info) for name, info in result.kernels.items()
        }
        self._device = device
        self._executor: Executor | None = None

    @property
    def executor(self) -> Executor:
        """The target's executor, created (and the code loaded) on first use."""
        if self._executor is None:
            from gpuc.runtime import executor_class

            cls = executor_class(self.result.target)
            options = {} if self._device is None else {"device": self._device}
            self._executor = cls(
                getattr(self.result, cls.code_field), self.signatures, **options
            )
        return self._executor

    def launch(
        self,
        name: str,
        grid: object,
        block: object,
        args: Sequence[object] = (),
    ) -> None:
        """Run kernel `name` on `grid` blocks of `block` threads; numpy arrays
        in `args` are passed by reference and hold the results afterwards."""
        self._check_kernel(name)
        self.executor.launch(name, grid, block, args)

    def __getitem__(self, name: str) -> Kernel:
        self._check_kernel(name)
        return Kernel(self, name)

    def _check_kernel(self, name: str) -> None:
        if name not in self.signatures:
            known = ", ".join(sorted(self.signatures)) or "none"
            raise UnknownKernel(
                f"no kernel named '{name}' in this module (kernels: {known})"
            )

    def __contains__(self, name: object) -> bool:
        return name in self.signatures

    def __iter__(self) -> Iterator[str]:
        return iter(self.signatures)

    def __repr__(self) -> str:
        return f"<gpuc module for {self.target}: {', '.join(self.signatures)}>"


def compile(
    source: str | os.PathLike[str] | ModuleOp,
    target: str | None = None,
    *,
    device: str | int | None = None,
    **options: Any,
) -> Module:
    """Compile `source` (a path, MLIR text or an xDSL module) for `target`
    (a registered target: `ptx`, `spirv`, `native` or a plugin's; None: the
    module's `#gpuc.target`, else `ptx`; compiler options as in the CLI) into a
    `Module` whose kernels run on that target's executor. `device` picks the
    executor's device: an OpenCL device name fragment, or a CUDA or HIP
    ordinal."""
    from gpuc.driver import OptionError, compile_module
    from gpuc.runtime import check_device
    from gpuc.targets import UnknownTarget, target_class

    if target is not None:
        try:
            check_device(target_class(target), device)
        except UnknownTarget as e:
            raise OptionError(str(e)) from None
    result = compile_module(source, target, **options)
    check_device(result.target, device)
    return Module(result, device)
