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
from pathlib import Path
from typing import Any

import numpy as np

from gpuc.runtime.args import (
    KernelSignature,
    LaunchError,
    Limits,
    check_launch,
    find_kernel,
)

SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
SPIRV_MAGIC = 0x07230203
DEVICE_ENV = "GPUC_OPENCL_DEVICE"


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
    """A directory holding one `.icd` file per entry (name -> library path),
    under the user's cache when writable; the name hashes the content, so
    concurrent processes agree on it and a stale directory is never reused."""
    digest = hashlib.sha256(repr(sorted(entries.items())).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    for root in (cache / "gpuc", Path(tempfile.gettempdir()) / f"gpuc-{os.getuid()}"):
        target = root / f"opencl-vendors-{digest}"
        if target.is_dir():
            return target
        try:
            root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(dir=root, prefix=".vendors-"))
            for name, library in entries.items():
                (staging / f"{name}.icd").write_text(library + "\n")
            try:
                staging.rename(target)
            except OSError:  # another process won the race: use its copy
                for file in staging.iterdir():
                    file.unlink()
                staging.rmdir()
            return target
        except OSError:
            continue
    raise LaunchError(
        "could not write an OpenCL vendors directory (the cache and the temporary "
        "directory are not writable); set OCL_ICD_VENDORS yourself"
    )


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


def select_device(version: tuple[int, int], wanted: str | None = None) -> Any:
    """The OpenCL device to run SPIR-V `version` on: the one whose description
    contains `wanted` (or $GPUC_OPENCL_DEVICE), else the first GPU, else the
    first device that accepts that version."""
    point_icd_loader_at_runtimes()
    import pyopencl as cl

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


class OpenCLExecutor:
    """Builds one SPIR-V module for one OpenCL device and launches its kernels.

    Arrays are copied to device buffers before each launch and back after it
    (constant-space arrays only in); `context`, `queue` (profiling enabled) and
    `kernel(name)` are there for benchmarks that time kernels with events.
    """

    code_field = "artefact"

    def __init__(
        self,
        spirv: bytes,
        kernels: Mapping[str, KernelSignature],
        *,
        device: str | None = None,
        _like: OpenCLExecutor | None = None,
        _source: str | None = None,
    ) -> None:
        import pyopencl as cl

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
        else:
            self.device = select_device(spirv_version(spirv), device)
            self.context = cl.Context([self.device])
            self.queue = cl.CommandQueue(
                self.context, properties=cl.command_queue_properties.PROFILING_ENABLE
            )
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
            )
        return self._limits[name]

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        import pyopencl as cl

        launch = check_launch(self.kernels, name, grid, block, args, self.limits)
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
        kernel = self.kernel(name)
        g, b = launch.grid, launch.block
        try:
            with self._lock:
                kernel.set_args(*(buffers.get(id(v), v) for v in launch.values))
                done = cl.enqueue_nd_range_kernel(
                    self.queue, kernel, (g[0] * b[0], g[1] * b[1], g[2] * b[2]), b
                )
            done.wait()
            for buffer, array in copy_back:
                cl.enqueue_copy(self.queue, array, buffer, is_blocking=True)
        except cl.Error as error:
            raise LaunchError(
                f"kernel '{name}' failed on {describe(self.device)}: {error}"
            ) from None
