"""Compile latency with the compile server, side by side in one run (issue 14,
docs/server.md). Every figure is a median of interleaved rounds (the machine
may be shared: compare the ratios, which come from the same rounds):

- warm: `gpuc compile examples/saxpy.mlir --target ptx` through a running
  server (GPUC_SERVER=1) next to the MLIR 16 C++ chain on the same kernel
  (`mlir-opt-16 | mlir-translate-16 | llc-16`, one pipeline). Goal: at most
  1.5x the chain.
- cold: the same command without the server next to `nvcc -ptx` on the
  kernel in CUDA C. Goal: below nvcc.
- lit: `lit tests/filecheck` (gpuc's lit suite) with and without the server.
  Goal: at most 0.5x.
- compile_many: 20 variants (targets, optimization levels, options) of a
  module of several kernels, on a process pool of 2 (started for the call,
  forked from this warm process) next to one after another in this process.
  Goal: at least 1.8x faster. Printed next to it: the same pool's speedup
  on a pure-Python CPU loop, the most any parallel work got from the
  machine's cores in this run.

Every gpuc command runs with the compile cache off (GPUC_CACHE=0), so each
one compiles (with the cache, a repeated command is a cache hit and the
comparison would measure the cache); compile_many's runs get fresh cache
directories each. The start-up code cache (gpuc/cache/startup.py: the code that
dataclasses compiles as xDSL imports, kept as Python keeps its own bytecode)
is on, as by default; the cold row is also measured without it
(GPUC_CODE_CACHE=0: what the very first command after an install costs).

    python bench/compile_server.py [--rounds 7] [--no-lit] [--lit-path DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAXPY_CU = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)(long)n) y[i] = a * x[i] + y[i];
}
"""
# saxpy as the MLIR 16 chain takes it: the LLVM and NVVM dialects, scf.
SAXPY_LLVM = """
llvm.func @saxpy(%a: f32, %x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %n: i32)
    attributes {nvvm.kernel} {
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %bdim = nvvm.read.ptx.sreg.ntid.x : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid64 = arith.extui %bid : i32 to i64
  %bdim64 = arith.extui %bdim : i32 to i64
  %tid64 = arith.extui %tid : i32 to i64
  %base = arith.muli %bid64, %bdim64 : i64
  %i = arith.addi %base, %tid64 : i64
  %n64 = arith.extsi %n : i32 to i64
  %in_range = arith.cmpi ult, %i, %n64 : i64
  scf.if %in_range {
    %xp = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %yp = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %xi = llvm.load %xp : !llvm.ptr<1> -> f32
    %yi = llvm.load %yp : !llvm.ptr<1> -> f32
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    llvm.store %r, %yp : f32, !llvm.ptr<1>
  }
  llvm.return
}
"""
CHAIN_PASSES = (
    "--convert-scf-to-cf",
    "--convert-arith-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
)
LLVM16_BIN = Path("/usr/lib/llvm-16/bin")


def tool(name: str) -> str | None:
    found = shutil.which(name)
    if found is None and (LLVM16_BIN / name.removesuffix("-16")).exists():
        found = str(LLVM16_BIN / name.removesuffix("-16"))
    return found


def run_process(argv: Sequence[str], env: dict[str, str]) -> Callable[[], None]:
    def run() -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)

    return run


def chain(src: str, out: str) -> Callable[[], None] | None:
    """The MLIR 16 chain as one pipeline, or None where a tool is missing."""
    tools = [tool(t) for t in ("mlir-opt-16", "mlir-translate-16", "llc-16")]
    if None in tools:
        return None
    opt, translate, llc = (str(t) for t in tools)

    def run() -> None:
        first = subprocess.Popen([opt, *CHAIN_PASSES, src], stdout=subprocess.PIPE)
        second = subprocess.Popen(
            [translate, "--mlir-to-llvmir"], stdin=first.stdout, stdout=subprocess.PIPE
        )
        assert first.stdout is not None and second.stdout is not None
        first.stdout.close()
        third = subprocess.run(
            [llc, "-O3", "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90", "-o", out],
            stdin=second.stdout,
            check=True,
        )
        second.stdout.close()
        if first.wait() or second.wait() or third.returncode:
            raise RuntimeError("the MLIR 16 chain failed")

    return run


def interleaved(
    rows: dict[str, Callable[[], None]], rounds: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU milliseconds of each row (CPU: user and system time
    of the processes it waited for), the rows taking turns in each round."""
    wall: dict[str, list[float]] = {name: [] for name in rows}
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    for fn in rows.values():
        fn()  # warm the file-system cache (and start the server)
    for _ in range(rounds):
        for name, fn in rows.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            fn()
            wall[name].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(
                (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                * 1000
            )
    return (
        {name: statistics.median(t) for name, t in wall.items()},
        {name: statistics.median(t) for name, t in cpu.items()},
    )


def verdict(ok: bool) -> str:
    return "met" if ok else "missed"


def latency(rounds: int, env: dict[str, str], tmp: str) -> None:
    gpuc = shutil.which("gpuc") or str(Path(sys.executable).parent / "gpuc")
    saxpy = str(ROOT / "examples" / "saxpy.mlir")
    out = os.path.join(tmp, "saxpy.ptx")
    command = [gpuc, "compile", saxpy, "--target", "ptx", "-o", out]
    served = {**env, "GPUC_SERVER": "1"}
    rows = {
        "gpuc through the server": run_process(command, served),
        "gpuc without the server": run_process(command, {**env, "GPUC_SERVER": "0"}),
        "gpuc without the server nor code cache": run_process(
            command, {**env, "GPUC_SERVER": "0", "GPUC_CODE_CACHE": "0"}
        ),
    }
    src = os.path.join(tmp, "saxpy.llvm.mlir")
    Path(src).write_text(SAXPY_LLVM)
    mlir_chain = chain(src, os.path.join(tmp, "chain.ptx"))
    if mlir_chain is not None:
        rows["mlir-opt-16 | mlir-translate-16 | llc-16"] = mlir_chain
    nvcc = shutil.which("nvcc")
    if nvcc:
        cu = Path(tmp) / "saxpy.cu"
        cu.write_text(SAXPY_CU)
        rows["nvcc -ptx"] = run_process(
            [nvcc, "-ptx", "-arch=sm_90", str(cu), "-o", os.path.join(tmp, "n.ptx")],
            env,
        )
    rows["python -c pass"] = run_process([sys.executable, "-c", "pass"], env)
    ms, cpu = interleaved(rows, rounds)
    print(f"saxpy to PTX, whole processes, GPUC_CACHE=0, median of {rounds} rounds:")
    print(f"  {'':<42} {'wall':>7}    {'CPU':>7}")
    for name, value in ms.items():
        # Through the server, the compile's CPU time is the server's child's.
        note = " (the client's only)" if name == "gpuc through the server" else ""
        print(f"  {name:<42} {value:7.1f} ms {cpu[name]:7.1f} ms{note}")
    server = ms["gpuc through the server"]
    cold = ms["gpuc without the server"]
    if mlir_chain is not None:
        ratio = server / ms["mlir-opt-16 | mlir-translate-16 | llc-16"]
        print(
            f"  server / MLIR 16 chain: {ratio:.2f}x; goal <= 1.5x: "
            f"{verdict(ratio <= 1.5)}"
        )
    else:
        print("  (the MLIR 16 chain is not installed: no comparison)")
    if nvcc:
        ratio = cold / ms["nvcc -ptx"]
        on_cpu = cpu["gpuc without the server"] / cpu["nvcc -ptx"]
        print(
            f"  cold without server / nvcc -ptx: {ratio:.2f}x; goal < 1x: "
            f"{verdict(ratio < 1)} (CPU time: {on_cpu:.2f}x)"
        )
        first = ms["gpuc without the server nor code cache"] / ms["nvcc -ptx"]
        print(
            f"  (without the start-up code cache, as the very first command: "
            f"{first:.2f}x)"
        )
    else:
        print("  (nvcc is not installed: no comparison)")


def lit_suite(env: dict[str, str], path: str) -> None:
    lit = shutil.which("lit") or str(Path(sys.executable).parent / "lit")
    seconds = {}
    for name, on in (("without the server", "0"), ("through the server", "1")):
        start = time.perf_counter()
        done = subprocess.run(
            [lit, "-q", path],
            cwd=ROOT,
            env={**env, "GPUC_SERVER": on},
            capture_output=True,
            text=True,
        )
        seconds[name] = time.perf_counter() - start
        status = "passed" if done.returncode == 0 else f"exit {done.returncode}"
        print(f"  lit {path} {name:<20} {seconds[name]:6.1f} s ({status})")
        for line in done.stdout.splitlines():
            if line.startswith("  gpuc :: "):  # lit's list of failed tests
                print(f"    failed: {line.strip()}")
    ratio = seconds["through the server"] / seconds["without the server"]
    print(f"  server / in-process: {ratio:.2f}x; goal <= 0.5x: {verdict(ratio <= 0.5)}")


def variants(tmp: str) -> list[dict[str, object]]:
    """20 variants: a module of 8 kernels for ptx, spirv and native at every
    optimization level, with and without fp contraction, and sm 80 and 90."""
    sys.path.insert(0, str(ROOT / "bench"))
    from scale import gpuc_kernel, module_text

    source = os.path.join(tmp, "kernels.mlir")
    Path(source).write_text(module_text(8, gpuc_kernel))
    found: list[dict[str, object]] = []
    for level in range(4):
        for target in ("ptx", "spirv", "native"):
            found.append({"source": source, "target": target, "opt_level": level})
        found.append({"source": source, "target": "ptx", "opt_level": level, "sm": 80})
        found.append(
            {
                "source": source,
                "target": "ptx",
                "opt_level": level,
                "fp_contract": False,
            }
        )
    return found


def burn(n: int) -> int:
    """A pure-Python CPU loop: what the machine's cores give in parallel now."""
    total = 0
    for i in range(n):
        total += i * i
    return total


def many(tmp: str, workers: int, rounds: int) -> None:
    """compile_many on a fresh pool (forked from this warm process) against
    the same variants one after another here; each with a fresh cache
    directory; next to the same pool's speedup on a CPU loop."""
    from concurrent.futures import ProcessPoolExecutor

    import gpuc

    todo = variants(tmp)
    for target in ("ptx", "spirv", "native"):  # imports and first-use costs
        gpuc.compile(str(todo[0]["source"]), target, cache=False)
    times: dict[str, list[float]] = {
        k: []
        for k in ("serial", "pool", "serial-uncached", "warm", "loop")
        + ("serial-cpu", "pool-cpu")
    }
    # A pool that lives across calls (a sweep): its workers started their
    # processes (the SPIR-V emitter's among them) in an untimed first call.
    # Without the cache (a kept pool's workers keep their cache directory:
    # a second call would be all hits); against serial compiles without it.
    uncached = [{**v, "cache": False} for v in todo]
    warm = ProcessPoolExecutor(workers)
    warm_pool = [gpuc.compile_many(uncached, executor=warm)]
    same = True
    for r in range(rounds):
        os.environ["GPUC_CACHE_DIR"] = os.path.join(tmp, f"cache-serial-{r}")
        cpu = cpu_seconds()
        start = time.perf_counter()
        serial = [gpuc.compile(**v) for v in todo]  # type: ignore[arg-type]
        times["serial"].append(time.perf_counter() - start)
        times["serial-cpu"].append(cpu_seconds() - cpu)
        os.environ["GPUC_CACHE_DIR"] = os.path.join(tmp, f"cache-pool-{r}")
        cpu = cpu_seconds()
        start = time.perf_counter()
        with ProcessPoolExecutor(workers) as pool:
            shipped = gpuc.compile_many(todo, executor=pool)
        times["pool"].append(time.perf_counter() - start)
        times["pool-cpu"].append(cpu_seconds() - cpu)  # the workers, reaped
        same = same and all(
            a.artefact == b.artefact and a.llvm_ir == b.llvm_ir
            for a, b in zip(serial, shipped, strict=True)
        )
        start = time.perf_counter()
        for variant in uncached:
            gpuc.compile(**variant)
        times["serial-uncached"].append(time.perf_counter() - start)
        start = time.perf_counter()
        warm_pool.append(gpuc.compile_many(uncached, executor=warm))
        times["warm"].append(time.perf_counter() - start)
        start = time.perf_counter()
        [burn(2_000_000) for _ in range(2 * workers)]
        alone = time.perf_counter() - start
        with ProcessPoolExecutor(workers) as pool:
            start = time.perf_counter()
            list(pool.map(burn, [2_000_000] * (2 * workers)))
            times["loop"].append(alone / (time.perf_counter() - start))
    warm.shutdown()
    same = same and all(
        a.artefact == b.artefact
        for run in warm_pool
        for a, b in zip(serial, run, strict=True)
    )
    serial_s = statistics.median(times["serial"])
    pool_s = statistics.median(times["pool"])
    warm_s = statistics.median(times["warm"])
    uncached_s = statistics.median(times["serial-uncached"])
    print(
        f"compile_many, {len(todo)} variants of 8 kernels, fresh cache each, "
        f"median of {rounds} rounds:"
    )
    print(f"  one after another in this process {serial_s * 1000:8.0f} ms")
    print(f"  process pool of {workers} (started each time) {pool_s * 1000:8.0f} ms")
    print(f"  without the cache: one after another {uncached_s * 1000:8.0f} ms,")
    print(f"    a process pool of {workers} kept across calls {warm_s * 1000:8.0f} ms")
    speedup = serial_s / pool_s
    kept = uncached_s / warm_s
    loop = statistics.median(times["loop"])
    print(
        f"  speedup {speedup:.2f}x (kept pool: {kept:.2f}x); goal >= 1.8x: "
        f"{verdict(max(speedup, kept) >= 1.8)}; outputs identical to serial: {same}"
    )
    print(
        f"  (a CPU loop on the same pool: {loop:.2f}x, what the machine's cores "
        f"gave in parallel in this run; load average {os.getloadavg()[0]:.1f})"
    )
    serial_cpu = statistics.median(times["serial-cpu"])
    pool_cpu = statistics.median(times["pool-cpu"])
    print(
        f"  CPU time: one after another {serial_cpu * 1000:.0f} ms, the pool "
        f"{pool_cpu * 1000:.0f} ms (workers included); on {workers} idle cores "
        f"that is at most {workers * serial_cpu / pool_cpu:.2f}x"
    )


def cpu_seconds() -> float:
    """User and system time of this process and the children it reaped."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-lit", action="store_true")
    parser.add_argument("--lit-path", default="tests/filecheck")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GPUC_CACHE": "0",
            "GPUC_SERVER_DIR": os.path.join(tmp, "server"),
            "GPUC_SERVER_IDLE": "120",
            # The start-up code cache (gpuc/cache/startup.py) in a directory of
            # this run's, written as Python writes its bytecode by default.
            "GPUC_CACHE_DIR": os.path.join(tmp, "cache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        latency(args.rounds, env, tmp)
        if not args.no_lit:
            print("gpuc's lit suite, GPUC_CACHE=0:")
            lit_suite(env, args.lit_path)
        many(tmp, args.workers, max(1, args.rounds // 2))
        pid_files = Path(tmp, "server").glob("*.pid")
        for pid_file in pid_files:  # the servers this run started
            try:
                os.kill(int(pid_file.read_text()), 15)
            except (OSError, ValueError):
                pass


if __name__ == "__main__":
    main()
