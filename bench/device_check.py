"""GPU check: every example kernel on the CUDA executor against numpy, device
arrays as other libraries see them (views, fill, __cuda_array_interface__,
DLPack; torch reading one where torch with CUDA is installed), then saxpy's
memory bandwidth against a device-to-device copy on the same GPU.

    python bench/device_check.py               # compile here with gpuc, run here
    python bench/device_check.py --save DIR    # compile only (no GPU needed)
    python bench/device_check.py --load DIR    # run saved PTX on a GPU machine

`--load` needs only numpy, cuda-core and this checkout (gpuc/runtime and
examples/cases.py are imported from the source tree; no xDSL, no llvmlite),
for GPU machines where the compiler's dependencies are not installed. `--save`
compiles for `--sm` (default 90: H100/H200). Without either, PTX is compiled
for the GPU's own compute capability.

Output: one line per example and size (ok, or what differs), the saxpy and
copy bandwidths with their ratio, then a summary. Exit status 0 when every
check passed, 1 when one failed, 2 when no GPU or driver could be used.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

import numpy as np  # noqa: E402
from cases import EXAMPLES, run  # noqa: E402

from gpuc.runtime.args import KernelSignature, LaunchError  # noqa: E402

Compiled = dict[str, tuple[str, dict[str, KernelSignature]]]
"""example -> (PTX text, kernel signatures)."""


def compile_examples(sm: int) -> tuple[Compiled, list[str]]:
    """PTX for every example (and the failures, one line each)."""
    import gpuc

    out: Compiled = {}
    failures: list[str] = []
    for name, example in EXAMPLES.items():
        if "ptx" in example.unsupported:
            continue
        try:
            mod = gpuc.compile(example.path, target="ptx", sm=sm)
        except Exception as error:
            failures.append(f"{name}: does not compile: {error}")
            print(f"  {name:18} COMPILE FAILED: {error}")
            continue
        assert isinstance(mod.artefact, str)
        out[name] = (mod.artefact, mod.signatures)
    return out, failures


def save(compiled: Compiled, directory: Path, sm: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"sm": sm, "examples": {}}
    for name, (ptx, sigs) in compiled.items():
        (directory / f"{name}.ptx").write_text(ptx)
        manifest["examples"][name] = {
            "ptx": f"{name}.ptx",
            "kernels": [s.to_json() for s in sigs.values()],
        }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"saved {len(compiled)} examples for sm_{sm} in {directory}")


def load(directory: Path) -> tuple[Compiled, int]:
    manifest = json.loads((directory / "manifest.json").read_text())
    compiled: Compiled = {}
    for name, entry in manifest["examples"].items():
        sigs = [KernelSignature.from_json(k) for k in entry["kernels"]]
        compiled[name] = (
            (directory / entry["ptx"]).read_text(),
            {s.name: s for s in sigs},
        )
    return compiled, int(manifest["sm"])


def check_examples(compiled: Compiled, seed: int) -> list[str]:
    """Run every configuration of every example; returns the failures."""
    from gpuc.runtime.cuda import CudaExecutor

    failures: list[str] = []
    for name, (ptx, sigs) in compiled.items():
        example = EXAMPLES[name]
        try:
            ex = CudaExecutor(ptx, sigs)
        except Exception as error:
            failures.append(f"{name}: could not load: {error}")
            print(f"  {name:18} LOAD FAILED: {error}")
            continue
        for i, cfg in enumerate(example.configs):
            label = " ".join(f"{k}={v}" for k, v in cfg.items())
            rng = np.random.default_rng([seed, i, len(name)])
            start = time.perf_counter()
            try:
                run(example, cfg, ex.launch, rng)
            except (AssertionError, LaunchError) as error:
                failures.append(f"{name} {label}: {error}")
                print(f"  {name:18} {label:28} FAIL: {error}")
                continue
            except Exception:
                failures.append(f"{name} {label}: {traceback.format_exc()}")
                print(f"  {name:18} {label:28} ERROR:\n{traceback.format_exc()}")
                continue
            ms = (time.perf_counter() - start) * 1e3
            print(f"  {name:18} {label:28} ok ({ms:.1f} ms incl. copies)")
    return failures


class _CudaInterface:
    """Another library's array by `__cuda_array_interface__` alone."""

    def __init__(self, interface: dict[str, Any]) -> None:
        self.__cuda_array_interface__ = interface


def check_device_arrays(compiled: Compiled, seed: int) -> list[str]:
    """Device arrays as other libraries see them (docs/arrays.md), on saxpy:
    a view launched on in place, fill (a memset), a CUDA array interface
    taken in place, the DLPack export's pointer, and torch reading it where
    torch with CUDA is installed. Returns the failures."""
    from gpuc.runtime import dlpack
    from gpuc.runtime.cuda import CudaExecutor

    ptx, sigs = compiled["saxpy"]
    ex = CudaExecutor(ptx, sigs)
    rng = np.random.default_rng([seed, 27])
    x = rng.standard_normal((4, 1024), dtype=np.float32)
    failures: list[str] = []

    def expect(what: str, ok: bool) -> None:
        print(f"  {what:46} {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"device arrays: {what}")

    d, ones = ex.to_device(x), ex.empty(1024, np.float32)
    ones.fill(1.0)
    expect("fill", bool((ones.copy_to_host() == 1).all()))
    ex.launch("saxpy", 4, 256, (np.float32(2), ones, d[2], np.int32(1024)))
    want = x.copy()
    want[2] += np.float32(2)
    expect("a view launched on in place", np.array_equal(d.copy_to_host(), want))
    interface = _CudaInterface(d[1].__cuda_array_interface__)
    ex.launch("saxpy", 4, 256, (np.float32(-1), ones, interface, np.int32(1024)))
    want[1] -= np.float32(1)
    expect("__cuda_array_interface__ in place", np.array_equal(d.copy_to_host(), want))
    capsule = d.__dlpack__()
    expect(
        "DLPack export's pointer", dlpack.tensor_of(capsule).dl_tensor.data == d.handle
    )
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        seen = torch.from_dlpack(d).cpu().numpy()
        expect("torch.from_dlpack reads the array", np.array_equal(seen, want))
    return failures


def median_ms(stream: Any, action: Callable[[], None], repeat: int) -> float:
    """Median over `repeat` runs of `action` (which queues on `stream`),
    timed with the stream's CUDA events."""
    action()  # warm up
    times = []
    for _ in range(repeat):
        start = stream.record()
        action()
        times.append(stream.record().elapsed_ms(start))
    return float(statistics.median(times))


def bandwidth(compiled: Compiled, log2n: int, repeat: int) -> str | None:
    """saxpy on 2^log2n floats against a device-to-device copy of the same
    array (cuda.core's Buffer.copy_from), on one stream."""
    from gpuc.runtime.cuda import CudaExecutor

    if "saxpy" not in compiled:
        return "saxpy was not compiled"
    ptx, sigs = compiled["saxpy"]
    ex = CudaExecutor(ptx, sigs)
    n = 1 << log2n
    nbytes = 4 * n
    x, y = ex.alloc(nbytes), ex.alloc(nbytes)
    stream = ex.stream()
    try:
        one = 0x3F800000  # 1.0f
        ex._memset(x, one, 4, n)
        ex._memset(y, one, 4, n)
        ex.synchronize("filling the bandwidth arrays")
        block = 256
        grid = (-(-n // block), 1, 1)
        values = [np.float32(0.5), x, y, np.int32(n)]
        saxpy_ms = median_ms(
            stream,
            lambda: ex.launch_raw(
                "saxpy", grid, (block, 1, 1), values, stream=stream.handle
            ),
            repeat,
        )
        copy_ms = median_ms(
            stream, lambda: ex._copy_async(True, y, x, nbytes, stream.handle), repeat
        )
        stream.synchronize()
    finally:
        ex.free(x)
        ex.free(y)
    saxpy_gbs = 3 * nbytes / saxpy_ms / 1e6  # read x, read y, write y
    copy_gbs = 2 * nbytes / copy_ms / 1e6  # read, write
    print(
        f"  saxpy 2^{log2n} f32, block {block}: {saxpy_ms:.3f} ms median of {repeat}, "
        f"{saxpy_gbs:.0f} GB/s (12 bytes per element)"
    )
    print(
        f"  device copy {nbytes >> 20} MiB:     {copy_ms:.3f} ms median of {repeat}, "
        f"{copy_gbs:.0f} GB/s (read + write)"
    )
    print(f"  saxpy / copy bandwidth: {saxpy_gbs / copy_gbs:.2f} (1.00 = copy speed)")
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--save", type=Path, help="compile only, into this directory")
    where.add_argument("--load", type=Path, help="run PTX saved with --save")
    parser.add_argument("--sm", type=int, help="compute capability to compile for")
    parser.add_argument("--saxpy-log2", type=int, default=28, help="saxpy size (2^N)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if not 10 <= args.saxpy_log2 <= 30:
        parser.error("--saxpy-log2 must be 10 to 30 (saxpy's n is an i32)")

    if args.save:
        saved, problems = compile_examples(args.sm or 90)
        save(saved, args.save, args.sm or 90)
        return 1 if problems else 0

    from gpuc.runtime.cuda import device_sm, start_driver

    try:
        device = start_driver()
        sm = device_sm()
    except LaunchError as error:
        print(f"device_check: no usable GPU: {error}")
        return 2
    import cuda.core

    print(f"GPU: {device.name}, sm_{sm}, cuda.core {cuda.core.__version__}")

    failures: list[str] = []
    if args.load:
        compiled, built_for = load(args.load)
        if built_for > sm:
            print(f"device_check: PTX saved for sm_{built_for} cannot run on sm_{sm}")
            return 2
    else:
        compiled, failures = compile_examples(args.sm or sm)

    seed = int(os.environ.get("GPUC_TEST_SEED", secrets.randbits(32)))
    print(f"examples (GPUC_TEST_SEED={seed}):")
    failures += check_examples(compiled, seed)
    print("device arrays:")
    try:
        failures += check_device_arrays(compiled, seed)
    except Exception:
        failures.append(f"device arrays: {traceback.format_exc()}")
        print(f"  ERROR:\n{traceback.format_exc()}")
    print("bandwidth:")
    try:
        problem = bandwidth(compiled, args.saxpy_log2, args.repeat)
    except LaunchError as error:
        problem = str(error)
    if problem:
        failures.append(f"bandwidth: {problem}")
        print(f"  FAILED: {problem}")

    total = sum(len(e.configs) for e in EXAMPLES.values() if "ptx" not in e.unsupported)
    print(f"summary: {total - len(failures)} of {total} example runs passed", end="")
    print(", bandwidth measured" if not problem else ", bandwidth FAILED")
    for failure in failures:
        print(f"  - {failure.splitlines()[0]}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
