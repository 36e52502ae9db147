"""`gpuc.compile_many` and `gpuc compile A B ... -j N`: variants compiled in
other processes give what serial compiles give, share the compile cache, and
come back launchable; failures are the compile's own errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.diagnostics import OpError
from gpuc.driver import OptionError

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples" / "saxpy.mlir")
REDUCE = str(ROOT / "examples" / "reduce.mlir")
GPUC = str(Path(sys.executable).parent / "gpuc")


def has_ptxas() -> bool:
    try:
        from gpuc.tools import ptxas

        ptxas()
    except Exception:
        return False
    return True


def variants() -> list[dict[str, object]]:
    found: list[dict[str, object]] = [
        {"source": SAXPY, "target": "native", "opt_level": 2},
        {"source": SAXPY, "target": "ptx", "sm": 80, "validate": has_ptxas()},
        {"source": SAXPY, "target": "spirv", "fp_contract": False},
        {"source": REDUCE, "target": "ptx", "opt_level": 1},
        {"source": Path(REDUCE).read_text(), "target": "native"},
    ]
    return found


def same(a: gpuc.Module, b: gpuc.Module) -> None:
    assert a.target == b.target
    assert a.artefact == b.artefact and a.llvm_ir == b.llvm_ir
    assert a.signatures == b.signatures and a.aliases == b.aliases


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("GPUC_CACHE_DIR", str(directory))
    monkeypatch.delenv("GPUC_CACHE", raising=False)
    return directory


def test_process_pool_matches_serial_and_shares_the_cache(cache_dir: Path) -> None:
    todo = variants()
    with ProcessPoolExecutor(2) as pool:
        shipped = gpuc.compile_many(todo, executor=pool)
        assert [m.cache for m in shipped] == ["miss"] * len(todo)
        again = gpuc.compile_many(todo, executor=pool)
    assert [m.cache for m in again] == ["hit"] * len(todo)  # the workers' entries
    serial = [gpuc.compile(cache=False, **v) for v in todo]  # type: ignore[arg-type]
    for a, b, c in zip(serial, shipped, again, strict=True):
        same(a, b)
        same(a, c)
    assert (
        isinstance(shipped[1].artefact, str) and ".target sm_80" in shipped[1].artefact
    )
    assert isinstance(shipped[0].result, gpuc.api.ShippedResult)


def test_shipped_module_launches(cache_dir: Path) -> None:
    variant = {"source": SAXPY, "target": "native", "fp_contract": False}
    [mod] = gpuc.compile_many([variant, variant], jobs=2)[1:]
    rng = np.random.default_rng()
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    expected = np.float32(1.5) * x + y
    mod["saxpy"].over(n, block=64)(np.float32(1.5), x, y, np.int32(n))
    np.testing.assert_array_equal(y, expected)  # no fma: numpy's roundings


def test_default_pool_and_in_process(cache_dir: Path) -> None:
    todo = variants()[:3]
    pooled = gpuc.compile_many(todo, jobs=2)
    here = gpuc.compile_many(todo, jobs=1)
    assert not isinstance(here[0].result, gpuc.api.ShippedResult)
    for a, b in zip(here, pooled, strict=True):
        same(a, b)


def test_a_failing_variant_raises_its_error(cache_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("gpuc.func @k() kernel {\n  %x = arith.addf %y, %y : f32\n}\n")
    with ProcessPoolExecutor(2) as pool:
        with pytest.raises(Exception) as raised:
            gpuc.compile_many(
                [{"source": SAXPY, "target": "ptx"}, {"source": str(bad)}],
                executor=pool,
            )
    with pytest.raises(type(raised.value)) as serial:
        gpuc.compile(str(bad))
    assert str(raised.value) == str(serial.value)
    with pytest.raises(OptionError, match="variant 0 needs a 'source'"):
        gpuc.compile_many([{"target": "ptx"}])
    with pytest.raises(OptionError, match="unknown option|option"):
        gpuc.compile_many([{"source": SAXPY, "target": "ptx", "bogus": 1}], jobs=1)


def test_dask_local_cluster(cache_dir: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        todo = variants()[:3]
        shipped = gpuc.compile_many(todo, executor=client.get_executor())
        # A variant that fails to verify: its own OpError, pickled by Dask.
        bad = "gpuc.func @k(%a: f32) -> f32 kernel {\n  gpuc.return %a : f32\n}\n"
        with pytest.raises(OpError, match="kernel @k returns"):
            gpuc.compile_many(
                [todo[0], {"source": bad}], executor=client.get_executor()
            )
    for variant, module in zip(todo, shipped, strict=True):
        same(gpuc.compile(cache=False, **variant), module)  # type: ignore[arg-type]


def test_cli_several_inputs(tmp_path: Path) -> None:
    env = {**os.environ, "GPUC_CACHE": "0", "GPUC_SERVER": "0"}
    bad = tmp_path / "bad.mlir"
    bad.write_text("gpuc.func @k() kernel {\n  %x = arith.addf %y, %y : f32\n}\n")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            GPUC,
            "compile",
            SAXPY,
            str(bad),
            REDUCE,
            "-j",
            "2",
            "--target",
            "ptx",
            "-o",
            str(out),
        ],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == b""
    assert f"{bad}:".encode() in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["reduce.ptx", "saxpy.ptx"]
    for name, source in (("saxpy", SAXPY), ("reduce", REDUCE)):
        alone = subprocess.run(
            [GPUC, "compile", source, "--target", "ptx"],
            capture_output=True,
            env=env,
            check=True,
        )
        assert (out / f"{name}.ptx").read_bytes() == alone.stdout
    shutil.rmtree(out)
    for argv, message in (
        ([SAXPY, REDUCE], b"-o DIR"),
        ([SAXPY, "-", "-o", str(out)], b"stdin"),
        ([SAXPY, SAXPY, "-o", str(out)], b"would both write saxpy"),
    ):
        done = subprocess.run([GPUC, "compile", *argv], capture_output=True, env=env)
        assert done.returncode == 1 and message in done.stderr, done.stderr
    assert not out.exists()


def test_variants_go_to_the_pool_longest_first() -> None:
    """The pool gets the expensive variants first (so the last to finish are
    short) and the Modules still come back in the variants' order."""
    from gpuc.variants import longest_first

    variants = [
        {"target": "ptx", "opt_level": 0},
        {"target": "native", "opt_level": 3},
        {"target": "spirv", "opt_level": 2},
        {"target": "ptx"},
        {"target": "native", "opt_level": 0},
    ]
    order = longest_first(variants)
    assert sorted(order) == list(range(len(variants)))
    assert order[0] == 1 and order[-1] == 0
    assert order.index(3) < order.index(4)  # ptx -O3 before native -O0


def small_variants(count: int) -> list[dict[str, object]]:
    """`count` ptx variants of saxpy that are not one compile (a constant each)."""
    text = Path(SAXPY).read_text()
    return [
        {"source": f"{text}\n// variant {i}\n", "target": "ptx", "opt_level": i % 4}
        for i in range(count)
    ]


def test_progress_and_results_as_they_complete(cache_dir: Path) -> None:
    todo = small_variants(4)
    todo.insert(2, {"source": "gpuc.func @k() kernel {\n  gpuc.return\n", "x": 1})
    seen: list[tuple[int, int, int]] = []
    with pytest.raises(OptionError, match="option.s. x need a target"):
        gpuc.compile_many(todo, jobs=2, progress=lambda *a: seen.append(a))
    assert [(done, total) for done, total, _ in seen] == [(d, 5) for d in range(1, 6)]
    assert sorted(index for _, _, index in seen) == list(range(5))
    outcomes = dict(gpuc.compile_each(todo, jobs=1))
    assert sorted(outcomes) == list(range(5))
    assert isinstance(outcomes[2], Exception)
    for i in (0, 1, 3, 4):
        module = outcomes[i]
        assert isinstance(module, gpuc.Module) and "saxpy" in module


def test_the_default_compiles_a_small_batch_here(cache_dir: Path) -> None:
    """Variants of a few milliseconds: a pool would cost more than it gains."""
    from gpuc import variants as batch

    batch.shutdown()
    modules = gpuc.compile_many(small_variants(6))
    assert batch._kept is None
    assert (
        gpuc.compile_many([]) == [] and len(gpuc.compile_many(small_variants(1))) == 1
    )
    assert not any(isinstance(m.result, gpuc.api.ShippedResult) for m in modules)


def test_the_default_keeps_a_pool_for_slow_variants(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Variants slow enough (here made slow by a sleep) go to a pool, which
    stays for the next call; its workers take this process's GPUC_*
    variables with each variant."""
    import time

    from gpuc import variants as batch

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: the default never starts a pool")
    batch.shutdown()
    compile_now = batch.compile_variant

    def slow(variant: dict[str, object]) -> gpuc.Module:
        time.sleep(0.3)
        return compile_now(variant)

    monkeypatch.setattr(batch, "compile_variant", slow)
    monkeypatch.setattr(batch, "_idle_cores", lambda: 2.0)
    try:
        todo = small_variants(6)
        modules = gpuc.compile_many(todo)
        assert batch._kept is not None
        assert sum(isinstance(m.result, gpuc.api.ShippedResult) for m in modules) == 4
        for variant, module in zip(todo, modules, strict=True):
            same(gpuc.compile(cache=False, **variant), module)  # type: ignore[arg-type]
        monkeypatch.setenv("GPUC_CACHE_DIR", str(cache_dir / "moved"))
        again = gpuc.compile_many(todo[:2])
        assert all(isinstance(m.result, gpuc.api.ShippedResult) for m in again)
        assert (cache_dir / "moved").is_dir()  # the kept workers saw the move
    finally:
        batch.shutdown()


def test_cli_several_inputs_report_progress_in_a_terminal(tmp_path: Path) -> None:
    """With standard error a terminal, a line per input as it completes;
    piped (the test above), none."""
    import pty

    env = {**os.environ, "GPUC_CACHE": "0", "GPUC_SERVER": "0"}
    bad = tmp_path / "bad.mlir"
    bad.write_text("gpuc.func @k() kernel {\n")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [GPUC, "compile", SAXPY, str(bad), "-j", "2", "--target", "ptx"]
            + ["-o", str(tmp_path / "out")],
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            timeout=120,
        )
        os.close(follower)
        written = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            written += chunk
    finally:
        os.close(leader)
    assert done.returncode == 1
    lines = [line.strip() for line in written.decode().splitlines()]
    reports = [line.split(" ", 1) for line in lines if line.startswith("[")]
    assert sorted(count for count, _ in reports) == ["[1/2]", "[2/2]"]
    assert {what for _, what in reports} == {f"compiled {SAXPY}", f"failed {bad}"}
