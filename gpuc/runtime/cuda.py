"""The ptx executor on `cuda.core` (pip install 'gpuc[cuda]'), NVIDIA's
maintained Python layer over the CUDA driver: the device (`Device`), gpuc's
PTX as an `ObjectCode` and its kernels (`Kernel`), `launch` with a
`LaunchConfig`, device memory as `Buffer`s (device arrays' memory), streams
(`Stream`) and timing events (`Event`) -- gpuc/runtime/device.py holds what
the CUDA and HIP executors share. numpy arrays are copied in, launched on and
copied back.

PTX that launches kernels from the device (`cudaLaunchDeviceV2`) is
relocatable: the executor links it with the CUDA device runtime
(`libcudadevrt.a`, from $GPUC_CUDADEVRT, the CUDA toolkit or the
nvidia-cuda-runtime wheel) with cuda.core's `Linker`.

Every CUDA error becomes a `LaunchError` with what failed and the error's
name. A fault inside a kernel (an illegal address) leaves a CUDA context
unusable: the error says so. A failing `cf.assert` is no fault: the kernel
writes its error record and returns, and the launch raises a `LaunchError`
naming the assert's location and message (`RecordingExecutor`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from gpuc.runtime.args import KernelSignature, LaunchError
from gpuc.runtime.device import LimitAttributes
from gpuc.runtime.error_record import RecordingExecutor

# What PTX that launches kernels from the device calls: cudaLaunchDeviceV2 and
# cudaGetParameterBufferV2, named __cudaCDP2... since CUDA 12.
DEVICE_RUNTIME_SYMBOLS = ("LaunchDeviceV2", "GetParameterBufferV2")


def without_a_gpu() -> str:
    """What to do on a machine without an NVIDIA GPU, added to each error
    that says one is missing."""
    from gpuc.targets import HOST_TARGET

    return (
        f"; to run here without one, compile with target='{HOST_TARGET}' (this "
        "CPU) or target='spirv' (an OpenCL device: pip install 'gpuc[opencl]' "
        "gives Intel's CPU runtime)"
    )


def _core() -> Any:
    """The `cuda.core` module (tests put tests/fake_cuda_core.py here)."""
    try:
        import cuda.core as core
    except ImportError:
        raise LaunchError(
            "the ptx executor needs cuda-core: pip install 'gpuc[cuda]'"
            + without_a_gpu()
        ) from None
    return core


@contextmanager
def reported(what: str) -> Iterator[None]:
    """Turn what cuda.core raises (its CUDAError names the driver's error)
    into a LaunchError saying what failed."""
    try:
        yield
    except LaunchError:
        raise
    except Exception as error:  # cuda.core's errors share no base of their own
        raise LaunchError(f"CUDA: {what} failed: {error}") from None


def device_runtime_library() -> Path | None:
    """libcudadevrt.a: $GPUC_CUDADEVRT, then the CUDA toolkit, then the wheel."""
    candidates: list[Path] = []
    if env := os.environ.get("GPUC_CUDADEVRT"):
        candidates.append(Path(env))
    for home in (
        os.environ.get("CUDA_HOME"),
        os.environ.get("CUDA_PATH"),
        "/usr/local/cuda",
    ):
        if home:
            for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
                candidates.append(Path(home) / sub / "libcudadevrt.a")
    try:
        import nvidia

        for root in nvidia.__path__:
            candidates += sorted(Path(root).glob("*/lib/libcudadevrt.a"))
    except ImportError:
        pass
    return next((path for path in candidates if path.is_file()), None)


def start_driver(ordinal: int = 0) -> Any:
    """CUDA device `ordinal` (a `cuda.core.Device`), current in this thread;
    or a LaunchError saying what is missing."""
    core = _core()
    try:
        device = core.Device(ordinal)
        device.set_current()
    except Exception as error:  # no libcuda.so, no device, a bad ordinal
        raise LaunchError(
            f"CUDA device {ordinal} cannot be used ({error}); the ptx executor "
            "needs an NVIDIA GPU and its driver" + without_a_gpu()
        ) from None
    return device


def device_sm(ordinal: int = 0) -> int:
    """The compute capability of CUDA device `ordinal` as gpuc's `sm` option
    (90 for 9.0), to compile PTX that this device loads."""
    major, minor = start_driver(ordinal).compute_capability
    return int(major) * 10 + int(minor)


def unowned_buffer(core: Any, address: int, nbytes: int) -> Any:
    """`nbytes` at `address`, host or device memory, as a cuda.core Buffer
    that does not own them (never frees them), for cuda.core's copies and
    fills, which take Buffers."""
    return core.Buffer.from_handle(address, nbytes)


class CudaExecutor(RecordingExecutor):
    """Loads one PTX module on one CUDA device and launches its kernels."""

    dlpack_device_type = 2
    cuda_array_interface = True
    shared_windows = True
    fault_note = (
        "a fault inside a kernel leaves this process's CUDA context unusable: "
        "restart the process"
    )

    def __init__(
        self,
        ptx: str | bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: int = 0,
    ) -> None:
        super().__init__(kernels)
        self.core = _core()
        self.device = start_driver(device)
        self.null_stream = self.core.LEGACY_DEFAULT_STREAM
        """The legacy default stream: launches and copies without a stream
        go there, ordered with every other (blocking) stream's work."""
        self._buffers: dict[int, Any] = {}
        """Each allocation's address -> its Buffer, freed by `free`."""
        self._linker: Any = None
        text = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        with reported("loading gpuc's PTX"):
            if any(symbol.encode() in text for symbol in DEVICE_RUNTIME_SYMBOLS):
                self.code = self._link_with_device_runtime(text)
            else:
                self.code = self.core.ObjectCode.from_ptx(text)
            for name in self.kernels:  # loads the module: its errors show here
                self.function(name)

    def _link_with_device_runtime(self, ptx: bytes) -> Any:
        library = device_runtime_library()
        if library is None:
            raise LaunchError(
                "this PTX launches kernels from the device, which needs the CUDA "
                "device runtime (libcudadevrt.a): install the CUDA toolkit or "
                "nvidia-cuda-runtime, or set GPUC_CUDADEVRT to the file"
            )
        core = self.core
        major, minor = self.device.compute_capability
        with warnings.catch_warnings():
            # Without nvJitLink cuda.core links with the driver, as gpuc wants
            # (no LTO here), and says so with a RuntimeWarning.
            warnings.filterwarnings("ignore", "cuda.bindings.nvjitlink", RuntimeWarning)
            self._linker = core.Linker(
                core.ObjectCode.from_ptx(ptx, name="gpuc.ptx"),
                core.ObjectCode.from_library(str(library)),
                options=core.LinkerOptions(arch=f"sm_{major}{minor}"),
            )
        with reported(f"linking gpuc's PTX with {library}"):
            return self._linker.link("cubin")

    def _find_function(self, name: str, symbol: bytes) -> Any:
        with reported(f"finding kernel '{name}' in the PTX"):
            return self.code.get_kernel(symbol.decode())

    def _function_max_threads(self, function: Any) -> int:
        with reported("reading a kernel's attributes"):
            return int(function.attributes.max_threads_per_block)

    def _limit_attributes(self) -> LimitAttributes:
        """`cuda.core.Device.properties`' names of the limits."""
        return LimitAttributes(
            max_block_threads="max_threads_per_block",
            max_block=("max_block_dim_x", "max_block_dim_y", "max_block_dim_z"),
            max_grid=("max_grid_dim_x", "max_grid_dim_y", "max_grid_dim_z"),
            max_shared_bytes="max_shared_memory_per_block",
        )

    def _device_attribute(self, attribute: Any) -> int:
        with reported(f"reading the device's {attribute}"):
            return int(getattr(self.device.properties, attribute))

    def _stream(self, stream: Any) -> Any:
        return self.null_stream if stream is None else stream

    def _copy(self, dst: int, src: int, nbytes: int, stream: Any) -> None:
        """Queue a copy of `nbytes` between two addresses (host or device:
        CUDA's unified addressing tells them apart) on `stream`."""
        core = self.core
        target = unowned_buffer(core, dst, nbytes)
        target.copy_from(unowned_buffer(core, src, nbytes), stream=stream)

    def _copy_to_device(self, pointer: int, host: int, nbytes: int, what: str) -> None:
        with reported(what):
            self._copy(pointer, host, nbytes, self.null_stream)
            self.null_stream.sync()

    def _copy_from_device(
        self, host: int, pointer: int, nbytes: int, what: str
    ) -> None:
        with reported(what):
            self._copy(host, pointer, nbytes, self.null_stream)
            self.null_stream.sync()

    def _launch_values(
        self,
        name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        values: Sequence[Any],
        stream: Any,
        shared: int,
    ) -> None:
        """`cuda.core.launch`: device addresses (ints) as 64-bit values, the
        rest numpy scalars of the parameters' types."""
        core = self.core
        config = core.LaunchConfig(grid=grid, block=block, shmem_size=shared)
        args = [np.uint64(v) if isinstance(v, int) else v for v in values]
        with reported(f"launching kernel '{name}'"):
            core.launch(self._stream(stream), config, self.function(name), *args)

    @property
    def owner(self) -> Any:
        return ("cuda", int(self.device.device_id))

    def _memset(self, pointer: int, pattern: int, width: int, count: int) -> bool:
        with reported(f"filling memory ({8 * width}-bit pattern)"):
            unowned_buffer(self.core, pointer, width * count).fill(
                np.array([pattern], f"<u{width}"), stream=self.null_stream
            )
        return True

    def _copy_async(
        self, to_device: bool, dst: int, src: int, nbytes: int, stream: Any
    ) -> None:
        where = "to" if to_device else "from"
        with reported(f"copying {where} the device on a stream"):
            self._copy(dst, src, nbytes, stream)

    def _stream_create(self) -> Any:
        with reported("creating a stream"):
            return self.device.create_stream()

    def _stream_destroy(self, stream: Any) -> None:
        with reported("destroying a stream"):
            stream.close()

    def _stream_synchronize(self, stream: Any, what: str) -> None:
        with reported(what):
            stream.sync()

    def _event_create(self) -> Any:
        with reported("creating an event"):
            return self.device.create_event(self.core.EventOptions(timing_enabled=True))

    def _event_destroy(self, event: Any) -> None:
        with reported("destroying an event"):
            event.close()

    def _event_record(self, event: Any, stream: Any) -> None:
        with reported("recording an event"):
            self._stream(stream).record(event)

    def _event_synchronize(self, event: Any) -> None:
        with reported("waiting for an event"):
            event.sync()

    def _event_elapsed_ms(self, start: Any, end: Any) -> float:
        with reported("timing two events"):
            return float(end - start)

    def make_current(self) -> None:
        """Make this executor's device current in the calling OS thread (a
        CUDA context is current per thread; Python threads each need it)."""
        with reported("making the device current"):
            self.device.set_current()

    def _alloc(self, nbytes: int) -> int:
        with reported(f"allocating {nbytes} bytes of device memory"):
            buffer = self.device.allocate(nbytes, stream=self.null_stream)
        pointer = int(buffer.handle)
        self._buffers[pointer] = buffer
        return pointer

    def free(self, pointer: int) -> None:
        buffer = self._buffers.pop(pointer)
        with reported("freeing device memory"):
            buffer.close(self.null_stream)

    def _synchronize(self, what: str) -> None:
        with reported(what):
            self.device.sync()

    def close(self) -> None:
        if self._linker is not None:
            self._linker.close()
            self._linker = None
