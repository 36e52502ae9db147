"""Async GPU work in host code (gpuc/host/streams.py): independent token
chains run at the same time on native and spirv (Intel's OpenCL CPU runtime),
each chain in order, joins and `gpu.wait` wait; a failed launch stops
`gpuc run` with a located error after what the kernels printed, each
failing assert's line in CUDA's format among it.

A program whose kernels would deadlock if run one after the other runs in a
subprocess with a timeout, or spins a bounded number of times, so that a
broken runner fails these tests instead of hanging them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import gpuc
from gpuc.host.streams import Chain, Streams, wait

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "host_runner"
TARGETS = ["native", "spirv"]


def gpuc_run(path: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuc.cli", "run", str(path), "--target", target],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "GPUC_SERVER": "0"},
    )


def test_chains_run_at_once_and_in_order() -> None:
    """Two chains' work meets (each waits for the other); a chain's later
    work runs after its earlier work; a join waits for both."""
    streams = Streams(lambda: None)
    met = threading.Barrier(2, timeout=20)
    order: list[str] = []
    a = streams.submit([], lambda _: met.wait())
    b = streams.submit([], lambda _: met.wait())
    assert a.chain is not b.chain
    a2 = streams.submit([a], lambda _: order.append("a2"))
    assert a2.chain is a.chain
    joined = streams.submit([b, a2], lambda _: order.append("joined"))
    wait([joined])
    assert order == ["a2", "joined"]
    streams.finish()


def test_waiting_for_a_token_waits_for_its_whole_stream() -> None:
    """`gpu.wait [%t]` synchronizes %t's stream: work queued on it after %t
    (`gpu.memcpy async [%t]`, as MLIR's tests copy results back) is done
    when the wait returns, as `mgpuStreamSynchronize` makes it."""
    streams = Streams(lambda: None)
    start = threading.Event()
    done: list[str] = []
    token = streams.token([])
    streams.submit([token], lambda _: (start.wait(20), done.append("first")))
    streams.submit([token], lambda _: done.append("second"))
    start.set()
    wait([token])
    assert done == ["first", "second"]
    streams.finish()


def test_a_chains_failure_is_sticky() -> None:
    """Work queued after a failure on its chain does not run and fails the
    same way; a chain that depends on it fails too; `wait` raises it."""
    streams = Streams(lambda: None)
    ran: list[str] = []

    def fail(_: object) -> None:
        raise RuntimeError("launch failed")

    failed = streams.submit([], fail)
    later = streams.submit([failed], lambda _: ran.append("later"))
    other = streams.submit([], lambda _: ran.append("other"))
    joined = streams.submit([other, later], lambda _: ran.append("joined"))
    with pytest.raises(RuntimeError, match="launch failed"):
        wait([joined])
    # `joined` went on other's stream: synchronizing it meets the failure.
    with pytest.raises(RuntimeError, match="launch failed"):
        wait([other])
    assert ran == ["other"]
    assert later.chain is failed.chain and isinstance(failed.chain, Chain)
    with pytest.raises(RuntimeError, match="launch failed"):
        streams.finish()


@pytest.mark.parametrize("target", TARGETS)
def test_kernels_on_independent_chains_run_concurrently(target: str) -> None:
    """MLIR's concurrent-kernels test, with a bounded spin: run one after
    the other, the first kernel would give up and see one increment."""
    rng = np.random.default_rng()
    start = int(rng.integers(-1000, 1000))
    program = (
        (FIXTURES / "meet.mlir")
        .read_text()
        .replace("START_", str(start))
        .replace("GOAL_", str(start + 2))
        .replace("LIMIT_", str(1 << 27))
    )
    counter, seen = gpuc.run_host(program, target)
    assert int(counter) == start + 2
    assert seen.tolist() == [start + 2, start + 2]


@pytest.mark.parametrize("target", TARGETS)
def test_gpuc_run_of_kernels_that_wait_for_each_other(target: str) -> None:
    """The corpus's shape exactly (an unbounded spin, as mlir-opt-16 prints
    it): in a subprocess, which a timeout ends if the kernels were run one
    after the other."""
    done = gpuc_run(FIXTURES / "concurrent.mlir", target)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("target", TARGETS)
def test_chains_and_joins_compute_in_order(target: str) -> None:
    rng = np.random.default_rng()
    x = rng.integers(-1000, 1000, 64).astype(np.int32)
    program = (
        (FIXTURES / "chains.mlir")
        .read_text()
        .replace("X_", "dense<[" + ", ".join(str(v) for v in x) + "]>")
    )
    (out,) = gpuc.run_host(program, target)
    np.testing.assert_array_equal(out, 3 * x + 5)


@pytest.mark.parametrize("target", TARGETS)
def test_a_failed_launch_prints_every_failing_thread_then_stops(
    tmp_path: Path, target: str
) -> None:
    """Every thread's print before the assert comes out, the passing ones'
    after it, one CUDA-style line per failing thread (file and line of the
    call site's callee, the name location's function); then `gpuc run`
    reports the launch's error at it and exits 1: the next launch never
    runs."""
    rng = np.random.default_rng()
    failing = {int(i) for i in rng.choice(256, int(rng.integers(1, 9)), False)}
    flags = ", ".join("1" if i in failing else "0" for i in range(256))
    path = tmp_path / "failing.mlir"
    path.write_text(
        (FIXTURES / "failing.mlir").read_text().replace("FLAGS_", f"dense<[{flags}]>")
    )
    done = gpuc_run(path, target)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert sorted(lines) == sorted(
        [f"before {i}" for i in range(256)]
        + [f"after {i}" for i in range(256) if i not in failing]
        + [
            f"check.cc:7: checker: block: [{i // 64},0,0], thread: [{i % 64},0,0] "
            "Assertion `the flag is clear` failed."
            for i in failing
        ]
    )
    assert len(lines) == len(set(lines))
    error = done.stderr.splitlines()[0]
    launch = f"{path}:34:5: error: 'gpu.launch_func' op the launch of "
    assert error.startswith(launch + "@kernels::check failed: kernel 'check': "), error
    assert "check.cc:7:9: assertion failed: the flag is clear" in error
    first = min(failing)
    where = f"block ({first // 64}, 0, 0), thread ({first % 64}, 0, 0)"
    if target == "native":  # threads run in order there: the first is reported
        assert where in error
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_an_error_waits_for_the_other_chains(target: str) -> None:
    """A launch that fails on one chain while another chain's kernel runs:
    `run_host` raises only once that kernel is done (it writes the program's
    arrays), and `gpuc run` exits with status 1 and the located diagnostic
    alone (no dump of the module, no abort at exit)."""
    from gpuc.diagnostics import OpError

    path = FIXTURES / "fail_while_other_runs.mlir"
    before = set(threading.enumerate())
    with pytest.raises(OpError, match="exceeds this executor's limit"):
        gpuc.run_host(path.read_text(), target)
    for thread in set(threading.enumerate()) - before:
        # A chain's thread ends as soon as its work is done: within a moment,
        # far less than the spinning kernel takes (half a second and more).
        thread.join(0.05)
        assert not thread.is_alive(), "a kernel still runs after run_host raised"
    done = gpuc_run(path, target)
    assert done.returncode == 1, done.stderr
    assert "'gpu.launch_func' op the launch of @kernels::fail failed" in done.stderr
    assert "Error while interpreting op" not in done.stderr
    assert len(done.stderr.splitlines()) == 2  # the message and its op


@pytest.mark.parametrize("target", TARGETS)
def test_a_launch_region_may_use_its_size_inside(target: str) -> None:
    """A host constant that is both a gpu.launch size and used in its body:
    the body gets its own copy, the launch keeps the host's."""
    done = gpuc_run(FIXTURES / "outline_capture.mlir", target)
    assert done.returncode == 0, done.stderr
    assert "[[2,   3,   4], \n [2,   3,   4]]" in done.stdout
