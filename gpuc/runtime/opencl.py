"""The spirv executor: builds gpuc's SPIR-V with `clCreateProgramWithIL`
through pyopencl, on any OpenCL device that accepts SPIR-V.

On a machine without such a device, Intel's OpenCL CPU runtime from PyPI
(`intel-opencl-rt`, `intel-cmplr-lib-rt`) runs SPIR-V 1.0-1.4 on the CPU.
pyopencl's ICD loader only finds drivers through vendor files, and the wheel
installs its own under the environment's `etc/` with a path that does not
exist; so before the loader starts, gpuc writes a vendors directory naming
the wheel's `libintelocl.so` (plus the system's own vendor files, so GPUs
stay visible) and points `OCL_ICD_VENDORS` at it. A user who sets
`OCL_ICD_VENDORS` or `OCL_ICD_FILENAMES` keeps full control.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import threading
import warnings
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from gpuc.runtime import error_record
from gpuc.runtime.args import (
    KernelSignature,
    Launch,
    LaunchError,
    Limits,
    check_launch,
    find_kernel,
    shared_bytes,
)
from gpuc.runtime.arrays import DeviceArray, Event, SharedMemory, Stream
from gpuc.runtime.printing import flush_c_stdout

SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
SPIRV_MAGIC = 0x07230203
DEVICE_ENV = "GPUC_OPENCL_DEVICE"
FRAGMENT_LANES = 32
"""The sub-group size of kernels using matrix fragments (gpuc/lowering/matrix.py's
WARP: gpuc/targets/spirv/lane_matrices.py spreads a fragment over 32 lanes)."""


def intel_cpu_runtime() -> Path | None:
    """The `libintelocl.so` installed by the intel-opencl-rt wheel, if any."""
    from importlib import metadata

    try:
        files = metadata.files("intel-opencl-rt") or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == "libintelocl.so":
            path = Path(str(file.locate())).resolve()
            if path.exists():
                return path
    return None


def _vendors_dir(entries: Mapping[str, str]) -> Path:
    """A directory holding one `.icd` file per entry (name -> library path):
    the ICD loader loads every library they name, so it is one no other user
    can write or swap. It lives in gpuc's own folder of the cache directory
    (gpuc/cache/directory.py), named by a digest of its content so processes share
    it, where no other user can rename anything on the way to it (the loader
    opens it by name); else in a fresh private temporary directory, removed
    when the process exits."""
    from gpuc.cache import directory as cache_dir

    digest = hashlib.sha256(repr(sorted(entries.items())).encode()).hexdigest()[:16]
    name = f"opencl-vendors-{digest}"
    files = {f"{n}.icd": (library + "\n").encode() for n, library in entries.items()}
    root = cache_dir.cache_directory()
    try:
        with cache_dir.folders(root, (), create=True) as folder:
            cache_dir.publish_folder(folder, name, files)
        published = Path(root, cache_dir.folder_name(), name)
        if cache_dir.private_path(str(published)):
            return published
    except OSError:
        pass
    try:
        private = Path(tempfile.mkdtemp(prefix="gpuc-opencl-vendors-"))
        for file, data in files.items():
            (private / file).write_bytes(data)
    except OSError as e:
        raise LaunchError(
            f"could not write an OpenCL vendors directory ({e}); set "
            "OCL_ICD_VENDORS yourself"
        ) from None
    import atexit
    import shutil

    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


def point_icd_loader_at_runtimes() -> None:
    """Set `OCL_ICD_VENDORS` so that the loader sees the system's drivers and
    Intel's CPU runtime from its wheel. Call before pyopencl's first platform
    query; does nothing when the user configured the loader."""
    if "OCL_ICD_VENDORS" in os.environ or "OCL_ICD_FILENAMES" in os.environ:
        return
    entries: dict[str, str] = {}
    if SYSTEM_VENDORS.is_dir():
        for icd in sorted(SYSTEM_VENDORS.glob("*.icd")):
            library = icd.read_text().strip()
            if library:
                entries[f"system-{icd.stem}"] = library
    intel = intel_cpu_runtime()
    if intel is not None:
        entries["gpuc-intel-cpu"] = str(intel)
    if entries:
        os.environ["OCL_ICD_VENDORS"] = str(_vendors_dir(entries))


def spirv_version(binary: bytes) -> tuple[int, int]:
    """The (major, minor) SPIR-V version in a module's header."""
    if len(binary) < 20:
        raise LaunchError("the spirv artefact is too short to be a SPIR-V module")
    magic, version = struct.unpack_from("<II", binary)
    if magic != SPIRV_MAGIC:
        raise LaunchError("the spirv artefact does not start with the SPIR-V magic")
    return (version >> 16) & 0xFF, (version >> 8) & 0xFF


def _il_versions(device: Any) -> set[tuple[int, int]]:
    """The SPIR-V versions a device accepts ('SPIR-V_1.2 ...'), empty if none."""
    try:
        il = device.il_version
    except Exception:  # OpenCL < 2.1 devices have no CL_DEVICE_IL_VERSION
        return set()
    versions: set[tuple[int, int]] = set()
    for word in il.split():
        if word.startswith("SPIR-V_"):
            major, _, minor = word[len("SPIR-V_") :].partition(".")
            if major.isdigit() and minor.isdigit():
                versions.add((int(major), int(minor)))
    return versions


def describe(device: Any) -> str:
    return f"{device.platform.name.strip()}: {device.name.strip()}"


def _spelled(device: Any) -> str:
    versions = sorted(_il_versions(device))
    accepted = " ".join(f"SPIR-V {a}.{b}" for a, b in versions) or "no SPIR-V"
    return f"{describe(device)} [{accepted}]"


def _pyopencl() -> Any:
    """pyopencl, or a LaunchError saying how to install it."""
    try:
        import pyopencl
    except ImportError:
        raise LaunchError(
            "the spirv executor needs pyopencl and an OpenCL runtime: pip install "
            "pyopencl intel-opencl-rt intel-cmplr-lib-rt (the test extra has them)"
        ) from None
    return pyopencl


def select_device(version: tuple[int, int], wanted: str | None = None) -> Any:
    """The OpenCL device to run SPIR-V `version` on: the one whose description
    contains `wanted` (or $GPUC_OPENCL_DEVICE), else the first GPU, else the
    first device that accepts that version."""
    point_icd_loader_at_runtimes()
    cl = _pyopencl()

    wanted = wanted or os.environ.get(DEVICE_ENV)
    try:
        devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error as error:
        devices = []
        reason = f" ({error})"
    else:
        reason = ""
    capable = [d for d in devices if version in _il_versions(d)]
    if wanted:
        capable = [d for d in capable if wanted.lower() in describe(d).lower()]
    if not capable:
        seen = "; ".join(_spelled(d) for d in devices) or "no OpenCL devices"
        hint = f" whose name contains '{wanted}'" if wanted else ""
        raise LaunchError(
            f"no OpenCL device{hint} accepts SPIR-V {version[0]}.{version[1]}"
            f"{reason}; found: {seen}. On a CPU, install Intel's runtime: "
            "pip install intel-opencl-rt intel-cmplr-lib-rt (gpuc finds it itself "
            "unless OCL_ICD_VENDORS or OCL_ICD_FILENAMES is set)"
        )
    gpus = [d for d in capable if d.type & cl.device_type.GPU]
    return (gpus or capable)[0]


_contexts: dict[int, tuple[Any, Any]] = {}
_contexts_lock = threading.Lock()


def _device_context(device: Any) -> tuple[Any, Any]:
    """The context and default queue (profiling enabled) of `device`, one per
    device and process, so that every module's kernels take the same device
    arrays and streams."""
    import pyopencl as cl

    with _contexts_lock:
        key = int(device.int_ptr)
        if key not in _contexts:
            context = cl.Context([device])
            queue = cl.CommandQueue(
                context, properties=cl.command_queue_properties.PROFILING_ENABLE
            )
            _contexts[key] = (context, queue)
        return _contexts[key]


def _users_queue(queue: Any, version: tuple[int, int]) -> tuple[Any, Any, Any]:
    """The device, context and queue of a caller's `pyopencl.CommandQueue`
    (`gpuc.compile(..., device=queue)`), or a LaunchError."""
    cl = _pyopencl()
    if not isinstance(queue, cl.CommandQueue):
        raise LaunchError(
            f"device={queue!r}: the spirv executor takes a fragment of an OpenCL "
            "device's name or a pyopencl.CommandQueue"
        )
    device = queue.device
    if version not in _il_versions(device):
        raise LaunchError(
            f"device={queue!r}: its device, {_spelled(device)}, does not accept "
            f"SPIR-V {version[0]}.{version[1]}"
        )
    return device, queue.context, queue


class OpenCLExecutor:
    """Builds one SPIR-V module for one OpenCL device and launches its kernels.

    Numpy arrays are copied to device buffers before each launch and back
    after it (those the kernel only reads or may not write: only in), and the
    launch waits. Device arrays (`to_device`, `empty`, or a
    `pyopencl.array.Array` of this context) stay on the device: a launch that
    takes only those is queued and returns at once. `context`, `queue` (the
    default stream's, profiling enabled) and `kernel(name)` are there for
    benchmarks and for mixing gpuc with pyopencl.
    """

    code_field = "artefact"

    def __init__(
        self,
        spirv: bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: Any = None,
        _like: OpenCLExecutor | None = None,
        _source: str | None = None,
    ) -> None:
        cl = _pyopencl()

        self.kernels = dict(kernels)
        self.device: Any
        self.context: Any
        self.queue: Any
        if _like is not None:
            self.device, self.context, self.queue = (
                _like.device,
                _like.context,
                _like.queue,
            )
        elif device is not None and not isinstance(device, str):
            self.device, self.context, self.queue = _users_queue(
                device, spirv_version(spirv)
            )
        else:
            self.device = select_device(spirv_version(spirv), device)
            self.context, self.queue = _device_context(self.device)
        program = cl.Program(self.context, _source if _source is not None else spirv)
        try:
            with warnings.catch_warnings():
                # The Intel runtime always logs (vectorizer remarks); not a problem.
                warnings.simplefilter("ignore", cl.CompilerWarning)
                self.program = program.build("-cl-std=CL3.0" if _source else "")
        except cl.Error as error:
            what = "the OpenCL C source" if _source else "gpuc's SPIR-V"
            raise LaunchError(
                f"{describe(self.device)} rejected {what}:\n{error}"
            ) from None
        self._kernels: dict[str, Any] = {}
        self._limits: dict[str, Limits] = {}
        self._lock = threading.Lock()  # set_args + enqueue on a shared kernel

    @classmethod
    def from_opencl_c(
        cls, source: str, kernels: Mapping[str, KernelSignature], like: OpenCLExecutor
    ) -> OpenCLExecutor:
        """An executor for OpenCL C `source` (built as OpenCL C 3.0) on the
        device, context and queue of `like`: baselines for benchmarks."""
        return cls(b"", kernels, _like=like, _source=source)

    def kernel(self, name: str) -> Any:
        """The pyopencl kernel object for `name`."""
        import pyopencl as cl

        sig = find_kernel(self.kernels, name)
        if name not in self._kernels:
            try:
                self._kernels[name] = cl.Kernel(self.program, sig.launch_symbol)
            except cl.Error as error:
                raise LaunchError(
                    f"kernel '{name}' is not in the SPIR-V module ({error})"
                ) from None
        return self._kernels[name]

    def limits(self, name: str) -> Limits:
        import pyopencl as cl

        if name not in self._limits:
            info = self.kernel(name).get_work_group_info
            most = min(
                self.device.max_work_group_size,
                info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device),
            )
            sizes = self.device.max_work_item_sizes
            self._limits[name] = Limits(
                max_block_threads=most,
                max_block=(sizes[0], sizes[1], sizes[2]),
                max_grid=(2**31 - 1, 2**31 - 1, 2**31 - 1),
                max_shared_bytes=self.device.local_mem_size,
                fragment_block_x=FRAGMENT_LANES,
            )
        return self._limits[name]

    def stream(self) -> OpenCLStream:
        """A new in-order command queue on this executor's device."""
        import pyopencl as cl

        queue = cl.CommandQueue(
            self.context, properties=cl.command_queue_properties.PROFILING_ENABLE
        )
        return OpenCLStream(self, queue)

    @property
    def default_stream(self) -> OpenCLStream:
        """The stream launches and copies without a stream go to (`queue`)."""
        return OpenCLStream(self, self.queue)

    def _queue(self, stream: object) -> Any:
        if stream is None:
            return self.queue
        if isinstance(stream, OpenCLStream) and stream.owner is self.owner:
            return stream.queue
        raise LaunchError(
            f"stream={stream!r} is not a stream of this spirv executor's context: "
            "make one with mod.stream()"
        )

    @property
    def owner(self) -> Any:
        """What device arrays and streams belong to: the OpenCL context."""
        return self.context

    def synchronize(self) -> None:
        """Wait for everything queued on the default stream."""
        self.queue.finish()

    def empty(self, shape: object, dtype: object) -> OpenCLArray:
        """An uninitialized device array."""
        import pyopencl as cl

        array = OpenCLArray(self, None, shape, dtype)
        array.handle = tracked_buffer()(
            self.context, cl.mem_flags.READ_WRITE, size=max(1, array.nbytes)
        )
        return array

    def to_device(
        self, host: np.ndarray[Any, Any], stream: Stream | None = None
    ) -> OpenCLArray:
        """A device array holding a copy of `host`."""
        host = np.ascontiguousarray(host)
        array = self.empty(host.shape, host.dtype)
        array.copy_from_host(host, stream=stream)
        return array

    def host_view(self, host: np.ndarray[Any, Any]) -> OpenCLArray:
        """A device array whose buffer is the memory of `host`, a contiguous
        array that outlives it (CL_MEM_USE_HOST_PTR: a CPU runtime runs the
        kernels on it in place), so that kernels running at the same time,
        and the host between them, share it as CUDA's host-registered memory
        is shared; `sync_host_view` once kernels have written it."""
        import pyopencl as cl

        if not host.flags.c_contiguous or host.nbytes == 0:
            raise LaunchError("host_view: the array must be contiguous and not empty")
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR
        buffer = tracked_buffer()(self.context, flags, hostbuf=host)
        view = OpenCLArray(self, buffer, host.shape, host.dtype)
        view.host = host  # the buffer's memory, kept alive with it
        return view

    def sync_host_view(self, view: OpenCLArray, stream: Stream | None = None) -> None:
        """Bring what kernels wrote to a host view into its host memory (a
        map and unmap: nothing moves where the runtime works in place)."""
        import pyopencl as cl

        queue = self._queue(stream)
        flags: Any = cl.map_flags.READ | cl.map_flags.WRITE
        buffer = view.buffer("sync_host_view")
        mapped, _ = cl.enqueue_map_buffer(
            queue, buffer, flags, 0, view.shape, view.dtype, is_blocking=True
        )
        mapped.base.release(queue)
        queue.finish()

    def adopt(self, value: Any) -> OpenCLArray:
        """A `pyopencl.array.Array` of this context as a device array sharing
        its buffer (nothing is copied)."""
        where = f"a pyopencl array of shape {value.shape}"
        if value.context != self.context:
            raise LaunchError(
                f"{where} belongs to another OpenCL context than this module's: "
                "compile with gpuc.compile(..., device=queue), the queue of that "
                "context (e.g. the array's .queue), to launch on it"
            )
        if not value.flags.c_contiguous:
            raise LaunchError(f"{where} is not contiguous")
        buffer = value.base_data
        if value.offset:
            try:
                buffer = buffer.get_sub_region(value.offset, max(1, value.nbytes))
            except Exception as error:
                raise LaunchError(
                    f"{where} starts {value.offset} bytes into its buffer, which "
                    f"this device cannot address as a sub-buffer ({error}): pass "
                    "a copy"
                ) from None
        return OpenCLArray(self, buffer, value.shape, value.dtype)

    def _adopted(self, args: Sequence[object]) -> list[object]:
        import pyopencl.array as cla

        return [self.adopt(a) if isinstance(a, cla.Array) else a for a in args]

    def launch(
        self,
        name: str,
        grid: object,
        block: object,
        args: Sequence[object],
        *,
        stream: Stream | None = None,
        shared: int = 0,
    ) -> None:
        """Launch `name`; synchronous when numpy arrays are among `args`
        (copied in and back), else queued on `stream` (default: `queue`)."""
        import pyopencl as cl

        queue = self._queue(stream)
        if shared_bytes(shared, name):
            raise LaunchError(
                f"kernel '{name}': the spirv executor gives dynamic shared memory "
                "through shared pointer parameters (an OpenCL local-memory "
                "argument): pass gpuc.SharedMemory(count) for each, not shared="
            )
        launch = check_launch(
            self.kernels, name, grid, block, self._adopted(args), self.limits, 0, True
        )
        for param, array in launch.device_arrays():
            if not isinstance(array, OpenCLArray) or array.owner is not self.owner:
                raise LaunchError(
                    f"kernel '{name}': argument '{param.name}' is a device array "
                    "of another executor; copy it to the host, or make it with "
                    "this module's to_device"
                )
            array.buffer(f"kernel '{name}': argument '{param.name}'")
        try:
            if any(True for _ in launch.arrays()):
                self._launch_copying(launch, queue)
            else:
                record = self._error_record(launch)
                event = self._enqueue(
                    launch,
                    queue,
                    [
                        d.handle if isinstance(d, OpenCLArray) else d
                        for d in launch.values
                    ],
                    record,
                )
                if record is not None or launch.sig.prints:
                    event.wait()  # a kernel that asserts or prints: waited for
                    self._after(launch, queue, record)
        except cl.Error as error:
            raise LaunchError(
                f"kernel '{name}' failed on {describe(self.device)}: {error}"
            ) from None

    def _error_record(self, launch: Launch) -> Any:
        """A zeroed error record for a kernel with asserts (None without)."""
        import pyopencl as cl

        if not launch.sig.asserts:
            return None
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        return cl.Buffer(self.context, flags, hostbuf=error_record.fresh())

    def _after(self, launch: Launch, queue: Any, record: Any) -> None:
        """Once a launch has run: what it printed to the process's standard
        output, and the error its record reports, if any."""
        import pyopencl as cl

        if launch.sig.prints:
            flush_c_stdout()
        if record is not None:
            words = error_record.fresh()
            cl.enqueue_copy(queue, words, record, is_blocking=True)
            error_record.check(launch.sig.name, launch.sig.asserts, words)

    def _enqueue(
        self, launch: Launch, queue: Any, values: Sequence[Any], record: Any = None
    ) -> Any:
        import pyopencl as cl

        values = [
            cl.LocalMemory(v.count * p.dtype.itemsize)
            if isinstance(v, SharedMemory)
            else v
            for p, v in zip(launch.sig.params, values, strict=True)
        ]
        if record is not None:
            values.insert(0, record)  # the hidden parameter 0
        kernel = self.kernel(launch.sig.name)
        g, b = launch.grid, launch.block
        with self._lock:
            kernel.set_args(*values)
            return cl.enqueue_nd_range_kernel(
                queue, kernel, (g[0] * b[0], g[1] * b[1], g[2] * b[2]), b
            )

    def _launch_copying(self, launch: Launch, queue: Any) -> None:
        import pyopencl as cl

        flags = cl.mem_flags
        # An array passed several times is one buffer (aliased), written if
        # any of its parameters may be written through.
        written: dict[int, bool] = {}
        arrays: dict[int, np.ndarray[Any, Any]] = {}
        for param, array in launch.arrays():
            arrays[id(array)] = array
            written[id(array)] = written.get(id(array), False) or param.written
        copy_back: list[tuple[Any, np.ndarray[Any, Any]]] = []
        buffers: dict[int, Any] = {}
        for key, array in arrays.items():
            access: Any = flags.READ_WRITE if written[key] else flags.READ_ONLY
            if array.nbytes == 0:  # OpenCL has no empty buffers; nothing to copy
                buffer = cl.Buffer(self.context, access, size=max(1, array.itemsize))
            else:
                access |= flags.COPY_HOST_PTR
                buffer = cl.Buffer(self.context, access, hostbuf=array)
                if written[key]:
                    copy_back.append((buffer, array))
            buffers[key] = buffer
        values = [
            v.handle if isinstance(v, OpenCLArray) else buffers.get(id(v), v)
            for v in launch.values
        ]
        record = self._error_record(launch)
        self._enqueue(launch, queue, values, record).wait()
        for buffer, array in copy_back:
            cl.enqueue_copy(queue, array, buffer, is_blocking=True)
        self._after(launch, queue, record)


DLPACK_OPENCL = 4
"""DLPack's `kDLOpenCL` device type."""


class OpenCLArray(DeviceArray):
    """A spirv executor's device array: an OpenCL buffer (`handle`)."""

    def __init__(
        self, executor: OpenCLExecutor, buffer: Any, shape: object, dtype: object
    ) -> None:
        super().__init__(executor.owner, buffer, shape, dtype)
        self.executor = executor
        self.host: np.ndarray[Any, Any] | None = None
        """The host memory of a `host_view`."""
        self.offset = 0
        """Where a view starts in its base array's buffer, in bytes."""

    def _view(self, offset: int, shape: tuple[int, ...]) -> OpenCLArray:
        """A sub-buffer (OpenCL has no sub-buffers of sub-buffers: of the
        base's), where the device allows the start's alignment."""
        root = self.base if isinstance(self.base, OpenCLArray) else self
        start = self.offset + offset
        view = OpenCLArray(self.executor, None, shape, self.dtype)
        view.offset = start
        if view.nbytes == 0:  # nothing to address: a buffer of its own
            view.handle = self.executor.empty(shape, self.dtype).handle
            return view
        if start == 0 and view.nbytes == root.nbytes:
            view.handle = root.handle
            return view
        align = self.executor.device.mem_base_addr_align // 8
        if start % align:
            raise IndexError(
                f"a view {start} bytes into a device array, which "
                f"{describe(self.executor.device)} cannot address: its sub-buffers "
                f"start at multiples of {align} bytes; copy_to_host() and slice "
                "there, or view from such a multiple"
            )
        view.handle = root.handle.get_sub_region(start, view.nbytes)
        return view

    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack's OpenCL device type (4), so that a consumer sees where the
        array is before asking for it."""
        return (DLPACK_OPENCL, 0)

    def __dlpack__(self, **kwargs: Any) -> Any:
        """Refused with what to do: an OpenCL buffer has no address a DLPack
        consumer could read (numpy, torch and JAX take only CPU or CUDA
        memory), and the spirv executor never copies silently."""
        raise BufferError(
            f"{self!r} is an OpenCL buffer, which no DLPack consumer reads in "
            "place: d.copy_to_host() gives a numpy array (or compile for the "
            "native target, whose device arrays are host memory)"
        )

    def fill(self, value: object, *, stream: Stream | None = None) -> None:
        """Set every element to `value` (clEnqueueFillBuffer: nothing copied)."""
        import pyopencl as cl

        if not self.nbytes:
            return
        pattern = np.full(1, value, self.dtype)
        queue = self.executor._queue(stream)
        event = cl.enqueue_fill_buffer(queue, self.handle, pattern, 0, self.nbytes)
        if stream is None:
            event.wait()

    def copy_to_host(
        self, out: np.ndarray[Any, Any] | None = None, *, stream: Stream | None = None
    ) -> np.ndarray[Any, Any]:
        import pyopencl as cl

        buffer = self.buffer("copy_to_host")
        if out is None:
            out = np.empty(self.shape, self.dtype)
        out = self.check_host(out, "copy_to_host")
        if self.nbytes:
            queue = self.executor._queue(stream)
            cl.enqueue_copy(queue, out, buffer, is_blocking=stream is None)
        return out

    def copy_from_host(
        self, host: np.ndarray[Any, Any], *, stream: Stream | None = None
    ) -> None:
        import pyopencl as cl

        buffer = self.buffer("copy_from_host")
        host = self.check_host(host, "copy_from_host")
        if self.nbytes:
            queue = self.executor._queue(stream)
            cl.enqueue_copy(queue, buffer, host, is_blocking=stream is None)

    def buffer(self, what: str) -> Any:
        """The array's OpenCL buffer, or a LaunchError naming `what` where it
        was released (`handle.release()`: the runtime would read freed memory;
        Intel's CPU runtime crashes the process)."""
        if getattr(self.handle, "released", False):
            raise LaunchError(
                f"{what}: the device array's OpenCL buffer was released "
                "(its handle's release()); it can no longer be read, written "
                "or launched on: make another with empty() or to_device()"
            )
        return self.handle


@cache
def tracked_buffer() -> type[Any]:
    """pyopencl's Buffer, remembering whether it was released (`released`),
    which pyopencl does not say: every use of a released buffer reads freed
    memory. The device arrays gpuc makes (`empty`, `to_device`, `host_view`)
    have one; what `adopt` shares is pyopencl's own, and untracked."""
    import pyopencl as cl

    class TrackedBuffer(cl.Buffer):
        released = False

        def release(self) -> None:
            self.released = True
            super().release()

    return TrackedBuffer


class OpenCLEvent(Event):
    """A marker on a command queue; its profiling end is the time it completed."""

    def __init__(self, event: Any) -> None:
        self.event = event

    def synchronize(self) -> None:
        self.event.wait()

    def elapsed_ms(self, start: Event) -> float:
        if not isinstance(start, OpenCLEvent):
            raise LaunchError("elapsed_ms: both events must come from OpenCL streams")
        self.synchronize()
        start.synchronize()
        return float(self.event.profile.end - start.event.profile.end) / 1e6


class OpenCLStream(Stream):
    """A spirv executor's stream: an in-order OpenCL command queue."""

    def __init__(self, executor: OpenCLExecutor, queue: Any) -> None:
        self.owner = executor.owner
        self.queue = queue

    def synchronize(self) -> None:
        self.queue.finish()

    def record(self) -> OpenCLEvent:
        import pyopencl as cl

        return OpenCLEvent(cl.enqueue_marker(self.queue))
