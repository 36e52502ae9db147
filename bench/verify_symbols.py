"""How long `module.verify()` takes on a module of n functions, each calling the next.

Every call's verifier resolves its callee. gpuc's verifiers go through one
symbol table per module (`gpuc.dialects.symbols`), so the whole module verifies
in O(n); xDSL's own `func.call` scans the module on each lookup, O(n^2). The
two dialects are measured side by side, in one run, on the same shape:

    python bench/verify_symbols.py [--sizes 1000 10000] [--func-sizes 1000 3000]

Prints the median of several runs for each size (the goal: 10,000 gpuc
functions verify in well under 2 s). The `nocall` rows verify the same gpuc
functions without their calls: the cost of xDSL's generic per-op verification
(operands, properties, traits), which no symbol table can remove.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import Operation

from gpuc.dialects.attrs import Role
from gpuc.dialects.functions import CallOp, FuncOp, ReturnOp


def gpuc_module(n: int) -> ModuleOp:
    """`@f<i>(%x: f32) -> f32 helper` calling `@f<i+1 mod n>`."""
    funcs: list[Operation] = []
    for i in range(n):
        fn = FuncOp(f"f{i}", ([f32], [f32]), Role.HELPER, visibility="private")
        with ImplicitBuilder(fn.body) as (x,):
            call = CallOp(f"f{(i + 1) % n}", [x], [f32])
            ReturnOp(call)
        funcs.append(fn)
    return ModuleOp(funcs)


def gpuc_module_without_calls(n: int) -> ModuleOp:
    """The same functions returning their argument: xDSL's per-op floor."""
    funcs: list[Operation] = []
    for i in range(n):
        fn = FuncOp(f"f{i}", ([f32], [f32]), Role.HELPER, visibility="private")
        with ImplicitBuilder(fn.body) as (x,):
            ReturnOp(x)
        funcs.append(fn)
    return ModuleOp(funcs)


def func_module(n: int) -> ModuleOp:
    """The same shape with xDSL's `func.func` and `func.call`."""
    funcs: list[Operation] = []
    for i in range(n):
        fn = func.FuncOp(f"f{i}", ([f32], [f32]), visibility="private")
        with ImplicitBuilder(fn.body) as (x,):
            call = func.CallOp(f"f{(i + 1) % n}", [x], [f32])
            func.ReturnOp(call)
        funcs.append(fn)
    return ModuleOp(funcs)


def median_verify_seconds(build: Callable[[int], ModuleOp], n: int, runs: int) -> float:
    """Median wall time of `verify()` over `runs` freshly built modules."""
    times: list[float] = []
    for _ in range(runs):
        module = build(n)
        # As timeit does: collect the previous runs' garbage first and keep the
        # cycle collector out of the timed region.
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            module.verify()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument(
        "--func-sizes",
        type=int,
        nargs="+",
        default=[1000, 3000],
        help="sizes for xDSL's func dialect (O(n^2): 10,000 takes minutes)",
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"{'module':<6} {'functions':>9} {'median verify':>14} {'per function':>13}")
    results: dict[tuple[str, int], float] = {}
    for name, build, sizes, runs in (
        ("gpuc", gpuc_module, args.sizes, args.runs),
        ("nocall", gpuc_module_without_calls, args.sizes, args.runs),
        ("func", func_module, args.func_sizes, max(1, args.runs // 2)),
    ):
        for n in sizes:
            seconds = median_verify_seconds(build, n, runs)
            results[name, n] = seconds
            print(f"{name:<6} {n:>9} {seconds:>12.3f} s {seconds / n * 1e6:>10.1f} us")
    for n in sorted(set(args.sizes) & set(args.func_sizes)):
        ratio = results["func", n] / results["gpuc", n]
        print(
            f"at {n} functions, func.call verifies {ratio:.1f}x slower than gpuc.call"
        )


if __name__ == "__main__":
    main()
