"""The Python API: compile a module and launch its kernels on numpy arrays.

    mod = gpuc.compile("examples/saxpy.mlir", target="native")
    mod.launch("saxpy", grid=(g,), block=(b,), args=(a, x, y, n))
    mod["saxpy"][g, b](a, x, y, n)
    dx, dy = mod.to_device(x), mod.to_device(y)  # device arrays: no copies
    mod["saxpy"].over(n, block=256)(a, dx, dy, n)
    y = dy.copy_to_host()

Compiling never touches a device; the target's executor (gpuc/runtime/) is
created on the first launch, so a module can be compiled for `ptx` on a
machine without a GPU and inspected (`mod.artefact`, `mod.llvm_ir`).
"""

from __future__ import annotations

import functools
import operator
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuc.runtime.launch_types import LaunchError

if TYPE_CHECKING:
    from concurrent.futures import Executor as PoolExecutor

    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from gpuc.compiler import CompileResult
    from gpuc.driver import KernelInfo
    from gpuc.runtime import Executor
    from gpuc.runtime.args import KernelSignature, Param
    from gpuc.targets.base import Target


def _param(
    name: str, attr: Attribute, read_only: bool = False, summed: bool = False
) -> Param:
    from gpuc.dialects.attrs import PtrType
    from gpuc.runtime.args import Param

    if isinstance(attr, PtrType):
        return Param(
            name, str(attr.element), attr.address_space.value, read_only, summed
        )
    return Param(name, str(attr))


def signature(info: KernelInfo) -> KernelSignature:
    """The executor-facing signature of a kernel the compiler reported."""
    from gpuc.runtime.args import KernelSignature

    names = (
        [str(n) for n in info.param_names]
        if all(info.param_names)
        else [f"arg{i}" for i in range(len(info.params))]
    )
    read_only = info.read_only or (False,) * len(info.params)
    summed = info.summed or (False,) * len(info.params)
    return KernelSignature(
        info.name,
        tuple(
            _param(n, t, r, s)
            for n, t, r, s in zip(names, info.params, read_only, summed, strict=True)
        ),
        info.uses_barrier,
        info.static_shared_bytes,
        info.symbol,
        info.block_size,
        info.memref_shapes,
        info.asserts,
        info.prints,
        info.uses_fragments,
    )


def qualified_names(result: CompileResult) -> dict[str, str]:
    """`module::name` -> kernel name, for the kernels the import took from a
    gpu.module (a name defined in several is already `module::name`)."""
    from xdsl.dialects.builtin import StringAttr

    from gpuc.dialects.functions import FuncOp

    aliases: dict[str, str] = {}
    for op in result.module.ops:
        origin = op.attributes.get("gpuc.gpu_module")
        if isinstance(op, FuncOp) and isinstance(origin, StringAttr):
            name = op.sym_name.data
            if name in result.kernels and "::" not in name:
                aliases[f"{origin.data}::{name}"] = name
    return aliases


class UnknownKernel(LaunchError, KeyError):
    """A kernel name the module does not have, from `mod.launch` or `mod[name]`:
    a LaunchError, and a KeyError as a missing key of a mapping is."""

    def __str__(self) -> str:
        return BaseException.__str__(self)  # KeyError's quotes the message


def _positive(value: object) -> int | None:
    """`value` as an int (a Python or numpy int) if it is at least 1."""
    if isinstance(value, bool):
        return None
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None
    return number if number >= 1 else None


def blocks(n: object, block: object) -> int | tuple[int, ...]:
    """How many blocks of `block` threads cover `n` elements: ceil(n / block),
    per dimension when both are tuples (`gpuc.blocks((h, w), (16, 16))`)."""
    sizes = n if isinstance(n, tuple) else (n,)
    shape = block if isinstance(block, tuple) else (block,)
    if len(sizes) != len(shape) or not 1 <= len(sizes) <= 3:
        raise LaunchError(
            f"blocks(n, block): n and block need the same 1 to 3 dimensions, got "
            f"n={n!r}, block={block!r}"
        )
    counts: list[int] = []
    for size, threads in zip(sizes, shape, strict=True):
        count, per = _positive(size), _positive(threads)
        if count is None:
            raise LaunchError(
                f"blocks(n, block): n must be ints of at least 1, got {n!r}"
            )
        if per is None:
            raise LaunchError(
                f"blocks(n, block): block must be ints of at least 1, got {block!r}"
            )
        counts.append(-(-count // per))
    return counts[0] if not isinstance(n, tuple) else tuple(counts)


class Kernel:
    """One kernel of a compiled module: `kernel[grid, block](*args)` launches
    it, `kernel[grid, block, stream, shared]` on a stream with dynamic shared
    memory, and `kernel.over(n, block=256)(*args)` on enough blocks for n."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        self.signature = module.signatures[name]

    def __getitem__(self, config: tuple[object, ...]) -> _Configured:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError(
                f"kernel '{self.name}': launch it as kernel[grid, block](*args) or "
                f"kernel[grid, block, stream, shared](*args), got kernel[{config!r}]"
            )
        stream = config[2] if len(config) > 2 else None
        shared = config[3] if len(config) > 3 else 0
        return _Configured(self, config[0], config[1], stream, shared)

    def over(
        self, n: object, block: object = 256, *, stream: Any = None, shared: object = 0
    ) -> _Configured:
        """The kernel configured for `n` elements (an int, or 1-3 sizes) with
        blocks of `block` threads: the grid is `gpuc.blocks(n, block)`. The
        kernel must still guard its index (the last block may stick out)."""
        return _Configured(self, blocks(n, block), block, stream, shared)

    def __call__(self, *args: object) -> None:
        raise LaunchError(
            f"kernel '{self.name}' needs a launch configuration: "
            f"mod['{self.name}'][grid, block](*args) or "
            f"mod['{self.name}'].over(n, block=256)(*args)"
        )

    def __repr__(self) -> str:
        params = ", ".join(f"{p.name}: {p.spelling}" for p in self.signature.params)
        return f"<gpuc kernel {self.name}({params})>"


class _Configured:
    def __init__(
        self, kernel: Kernel, grid: object, block: object, stream: Any, shared: object
    ) -> None:
        self.kernel, self.grid, self.block = kernel, grid, block
        self.stream, self.shared = stream, shared

    def __call__(self, *args: object) -> None:
        self.kernel.module.launch(
            self.kernel.name,
            grid=self.grid,
            block=self.block,
            args=args,
            stream=self.stream,
            shared=self.shared,
        )


@dataclass(frozen=True)
class ShippedResult:
    """What a Module keeps of its CompileResult when it is pickled (returned
    from another process by `compile_many`): the outputs, not the IR."""

    target: Target
    llvm_ir: str
    artefact: bytes | str
    cache: str


class Module:
    """A compiled module: the compiler's outputs, and its kernels, launchable."""

    def __init__(
        self, result: CompileResult | ShippedResult, device: Any = None
    ) -> None:
        self.result = result
        self.target: str = result.target.name
        self.llvm_ir: str = result.llvm_ir
        self.artefact: bytes | str = result.artefact
        self.cache: str = result.cache
        """How the compile cache served this module: 'hit', 'miss' or 'off'."""
        self.aliases: dict[str, str] = (
            qualified_names(result) if not isinstance(result, ShippedResult) else {}
        )
        """`module::name` for kernels from a gpu.module -> the kernel's name."""
        self._device = device
        self._executor: Executor | None = None

    @functools.cached_property
    def signatures(self) -> dict[str, KernelSignature]:
        """The kernels' signatures as the executors check launches against
        them, made on first use (that checking needs numpy; a compile does not)."""
        if isinstance(self.result, ShippedResult):
            return {}
        return {name: signature(info) for name, info in self.result.kernels.items()}

    @property
    def executor(self) -> Executor:
        """The target's executor, created (and the code loaded) on first use."""
        if self._executor is None:
            from gpuc.runtime import executor_class

            cls = executor_class(self.result.target)
            options: dict[str, Any] = {}
            if self._device is not None:
                options["device"] = self._device
            if self.result.target.block_specialization and not isinstance(
                self.result, ShippedResult
            ):
                from gpuc.compiler import specialized_llvm_ir

                options["specialize"] = functools.partial(
                    specialized_llvm_ir, self.result.module
                )
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
        *,
        stream: Any = None,
        shared: object = 0,
    ) -> None:
        """Run kernel `name` on `grid` blocks of `block` threads. Numpy arrays
        in `args` are copied in and back (the launch waits); with device
        arrays only, the launch is queued on `stream` (default: the device's
        default stream) and returns at once where the runtime is asynchronous.
        `shared`: dynamic shared-memory bytes per block (docs/arrays.md)."""
        name = self.aliases.get(name, name)
        if stream is None and type(shared) is int and shared == 0:
            executor = self._executor or self.executor
            if not hasattr(executor, "stream") and name in self.signatures:
                executor.launch(name, grid, block, args)  # runs to completion
                return
        from gpuc.runtime.args import shared_bytes

        name = self._resolve(name)
        executor = self.executor
        options: dict[str, Any] = {}
        if stream is not None:
            options["stream"] = stream
        if shared_bytes(shared, name):
            options["shared"] = shared
        if hasattr(executor, "stream"):
            executor.launch(name, grid, block, args, **options)
            return
        # An executor without streams runs each launch to completion (native).
        from gpuc.runtime.arrays import HostStream

        if stream is not None and not isinstance(stream, HostStream):
            raise LaunchError(
                f"kernel '{name}': the {self.target} executor takes only its own "
                f"streams (mod.stream()), got {stream!r}"
            )
        if "shared" in options:
            raise LaunchError(
                f"kernel '{name}': the {self.target} executor provides no dynamic "
                "shared memory; use gpuc.shared_alloc"
            )
        executor.launch(name, grid, block, args)

    @property
    def _arrays(self) -> Any:
        """What makes this executor's device arrays and streams."""
        from gpuc.runtime.arrays import HostArrays

        executor = self.executor
        return executor if hasattr(executor, "to_device") else HostArrays()

    def to_device(self, host: Any, stream: Any = None) -> Any:
        """A device array of this module's executor holding a copy of the
        numpy array `host` (on native: host memory, launched without copies)."""
        import numpy as np

        return self._arrays.to_device(np.asarray(host), stream)

    def empty(self, shape: object, dtype: object) -> Any:
        """An uninitialized device array of this module's executor."""
        return self._arrays.empty(shape, dtype)

    def stream(self) -> Any:
        """A new stream (an OpenCL queue, a CUDA or HIP stream; on native, a
        synchronous one) on this module's device."""
        return self._arrays.stream()

    def synchronize(self) -> None:
        """Wait for everything queued on the device's default stream."""
        self._arrays.synchronize()

    def __getitem__(self, name: str) -> Kernel:
        return Kernel(self, self._resolve(name))

    def _resolve(self, name: str) -> str:
        """The kernel `name` means: its own name, or `module::name` for a
        kernel of a gpu.module (docs/frontends.md)."""
        name = self.aliases.get(name, name)
        self._check_kernel(name)
        return name

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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled: the outputs, signatures and aliases; not the IR (`result`
        becomes a ShippedResult) nor the executor, made again on first use."""
        shipped = ShippedResult(
            self.result.target, self.llvm_ir, self.artefact, self.cache
        )
        state = (shipped, self.signatures, self.aliases, self._device)
        return (_unpickle_module, state)


def _unpickle_module(
    shipped: ShippedResult,
    signatures: dict[str, KernelSignature],
    aliases: dict[str, str],
    device: Any,
) -> Module:
    module = Module(shipped, device)
    module.signatures, module.aliases = signatures, aliases
    return module


def python_kernels(source: object) -> list[Any] | None:
    """`source` as a list of Python kernels (docs/python.md), if it is one
    (`@gpuc.kernel` functions, alone or in a list)."""
    from gpuc.python.decorators import PyFunction

    items = source if isinstance(source, list | tuple) else [source]
    if not items or not all(isinstance(k, PyFunction) for k in items):
        return None
    return list(items)


def compile(
    source: str | os.PathLike[str] | ModuleOp | Any,
    target: str | None = None,
    *,
    device: Any = None,
    **options: Any,
) -> Module:
    """Compile `source` (a path, MLIR text, an xDSL module, or Python kernels:
    a `@gpuc.kernel` function or a list of them, `constexprs={name: value}`
    for a kernel's constexpr parameters) for `target`
    (a registered target: `ptx`, `spirv`, `native` or a plugin's; None: the
    module's `#gpuc.target`, else `ptx`; compiler options as in the CLI) into a
    `Module` whose kernels run on that target's executor. `device` picks the
    executor's device: an OpenCL device name fragment or a
    `pyopencl.CommandQueue` to run on (docs/arrays.md), or a CUDA or HIP
    ordinal. `cache=False` skips the compile cache, `dump_dir=D` writes every
    stage under D (`dump_filter`: which; docs/cache.md). `checked=True` (native)
    checks every access against its buffer at run time (docs/runtime.md)."""
    from gpuc.compiler import compile_module
    from gpuc.driver import OptionError
    from gpuc.runtime import check_device
    from gpuc.targets import UnknownTarget, target_class

    if (kernels := python_kernels(source)) is not None:
        from gpuc.python.decorators import prepare_compiler

        prepare_compiler()
        from gpuc.python.launch import compile_functions

        constexprs = options.pop("constexprs", None)
        if constexprs is not None and not isinstance(source, list | tuple):
            constexprs = {kernels[0].name: constexprs}
        return compile_functions(
            kernels, target, constexprs=constexprs, device=device, **options
        )

    if target is not None:
        try:
            check_device(target_class(target), device)
        except UnknownTarget as e:
            raise OptionError(str(e)) from None
    result = compile_module(source, target, **options)
    check_device(result.target, device)
    return Module(result, device)


def compile_many(
    variants: Iterable[Mapping[str, Any]],
    *,
    executor: PoolExecutor | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> list[Module]:
    """Compile several variants at once, each a mapping of `compile`'s
    arguments (`source`, a path or MLIR text, and optionally `target`,
    `device` and compiler options), as `compile` would one after another: the
    Modules in the variants' order; the first variant that failed raises its
    error once every variant is done. `progress(done, total, index)` is
    called here as each variant completes (`index`: which one).

    The variants run on `executor`, any `concurrent.futures.Executor` (a
    process pool, a Dask `Client.get_executor()`, ...); with `jobs`, on a
    process pool of that many workers started for the call (`jobs=1`: in
    this process); without either, where gpuc estimates it is fastest: a
    small batch in this process, a larger one on a pool kept for later calls
    (gpuc/variants.py). The workers share the compile cache (GPUC_CACHE_DIR
    for workers on other machines; relative paths are the workers' own). The
    Modules come back pickled: launchable, with the outputs, and `result` a
    ShippedResult, without the IR (docs/server.md)."""
    from gpuc.variants import checked_variants, each

    todo = checked_variants(variants)
    found: dict[int, Module | Exception] = {}
    for index, outcome in each(todo, executor, jobs):
        found[index] = outcome
        if progress is not None:
            progress(len(found), len(todo), index)
    modules: list[Module] = []
    for i in range(len(todo)):
        outcome = found[i]
        if isinstance(outcome, Exception):
            raise outcome
        modules.append(outcome)
    return modules


def compile_each(
    variants: Iterable[Mapping[str, Any]],
    *,
    executor: PoolExecutor | None = None,
    jobs: int | None = None,
) -> Iterator[tuple[int, Module | Exception]]:
    """`compile_many`'s variants as they complete: (index, Module), or
    (index, the error its compile raised). Stopping early cancels the
    variants not yet started."""
    from gpuc.variants import checked_variants, each

    return each(checked_variants(variants), executor, jobs)
