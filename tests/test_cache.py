"""The compile cache (gpuc/cache/store.py, gpuc/cache/compiling.py, gpuc/cli/cache.py):
every key input changes the key and nothing else does, a hit is byte-identical
to a fresh compile, corrupt entries are replaced, concurrent writers never
leave a torn entry, the size bound holds, and the switches work."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

import gpuc
import gpuc.cache.compiling
import gpuc.cache.store
from gpuc.cache.compiling import compile_key, source_key
from gpuc.cache.store import Cache, Entry, default_directory, native_object_key
from gpuc.cli.main import main
from gpuc.driver import make_options, run
from gpuc.generators.mock_autodiff import MockAutodiff

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SAXPY = (EXAMPLES / "saxpy.mlir").read_text()

CALLS_LIB = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = gpuc.deferred_call @twice(%v) #gpuc.job<helper> : (f32) -> f32
  gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
"""

LIB = """
gpuc.func @twice(%v: f32) -> f32 helper {
  %r = arith.addf %v, %v : f32
  gpuc.return %r : f32
}
"""

GENERATED = """
gpuc.func @k(%x: !gpuc.ptr<f32, global>) kernel {
  %i = gpuc.global_id x
  %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
  %r = gpuc.deferred_call @sq(%v) #gpuc.job<helper, generator = "mine"> : (f32) -> f32
  gpuc.store %r, %x[%i] : !gpuc.ptr<f32, global>
  gpuc.return
}
gpuc.func private @sq(%v: f32) -> f32 helper {
  %r = arith.mulf %v, %v : f32
  gpuc.return %r : f32
}
"""


class Mine(MockAutodiff):
    """A generator with a version (the key includes it)."""

    version: ClassVar[str] = "1"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache on, in a directory of this test's own."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(directory))
    return directory


def key(source: str, target: str | None = "ptx", **options: Any) -> str:
    c = run(source, make_options(target, options), stop_after="dialect")
    return compile_key(c)


def test_options_change_the_key(tmp_path: Path) -> None:
    base = key(SAXPY)
    variants = [
        key(SAXPY, "spirv"),
        key(SAXPY, "native"),
        key(SAXPY, sm=80),
        key(SAXPY, ptx_isa=80),
        key(SAXPY, opt_level=2),
        key(SAXPY, opt_level=0),
        key(SAXPY, fp_contract=False),
        key(SAXPY, line_info=True),
        key(SAXPY.replace("%in_range", "%ok")),  # value names reach LLVM IR
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert key(SAXPY, validate=True) == base  # validation makes nothing


def test_exports_change_the_key_through_the_module() -> None:
    src = SAXPY + "gpuc.func @h(%v: f32) -> f32 helper {\n  gpuc.return %v : f32\n}\n"
    assert key(src, exports=("h",)) != key(src)


def test_toolchain_and_host_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = key(SAXPY)
    keys = []
    with monkeypatch.context() as m:
        m.setattr(gpuc.cache.store, "compiler_version", lambda: "99.0")
        keys.append(key(SAXPY))
    with monkeypatch.context() as m:
        m.setattr(gpuc.cache.store, "_code_fingerprint", lambda: "edited")
        keys.append(key(SAXPY))
    real = gpuc.cache.store._dist_version
    for dist in ("xdsl", "llvmlite"):
        with monkeypatch.context() as m:
            m.setattr(
                gpuc.cache.store,
                "_dist_version",
                lambda name, d=dist: "0.0" if name == d else real(name),
            )
            keys.append(key(SAXPY))
    with monkeypatch.context() as m:
        m.setattr(
            gpuc.cache.store, "_llvm_library", lambda: (("libllvmlite.so", 1, 2),)
        )
        keys.append(key(SAXPY))
    with monkeypatch.context() as m:
        m.setattr(gpuc.cache.compiling, "host", lambda: "another machine")
        keys.append(key(SAXPY))
    with monkeypatch.context() as m:  # a plugin installed or upgraded
        m.setattr(
            gpuc.cache.compiling,
            "plugins",
            lambda: (("gpuc.targets", "t", "t:T", "t-1.0.dist-info", "code"),),
        )
        keys.append(key(SAXPY))
    assert key(SAXPY) == base
    assert len({base, *keys}) == len(keys) + 1


def test_library_content_changes_the_key(tmp_path: Path) -> None:
    lib = tmp_path / "lib.mlir"
    lib.write_text(LIB)
    base = key(CALLS_LIB, libraries=[str(lib)])
    lib.write_text(LIB.replace("arith.addf", "arith.mulf"))
    assert key(CALLS_LIB, libraries=[str(lib)]) != base
    # What the job does not reach is no part of it.
    unrelated = "gpuc.func @other(%v: f32) -> f32 helper {\n  gpuc.return %v : f32\n}\n"
    lib.write_text("// a comment\n" + LIB + unrelated)
    assert key(CALLS_LIB, libraries=[str(lib)]) == base
    moved = tmp_path / "elsewhere.mlir"
    moved.write_text(LIB)
    assert key(CALLS_LIB, libraries=[str(moved)]) == base


def test_generator_identity_and_version_change_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = key(GENERATED, generators={"mine": Mine()})
    monkeypatch.setattr(Mine, "version", "2")
    assert key(GENERATED, generators={"mine": Mine()}) != base

    class Other(Mine):
        pass

    monkeypatch.setattr(Mine, "version", "1")
    assert key(GENERATED, generators={"mine": Other()}) != base
    assert key(GENERATED, generators={"mine": Mine()}) == base


def test_comments_and_dead_functions_do_not_change_the_key() -> None:
    base = key(SAXPY)
    dead = (
        "gpuc.func private @unused(%v: f32) -> f32 helper {\n"
        "  %r = arith.mulf %v, %v : f32\n  gpuc.return %r : f32\n}\n"
    )
    assert key("// another comment\n\n" + SAXPY) == base
    assert key(SAXPY + dead) == base
    assert key(dead + SAXPY.replace("  ", "    ")) == base
    # With line tables, where an op is written is part of the output.
    assert key("// shifted\n" + SAXPY, line_info=True) != key(SAXPY, line_info=True)
    # So it is on native, whose run-time errors quote source locations.
    assert key("// shifted\n" + SAXPY, "native") != key(SAXPY, "native")


@pytest.mark.parametrize("target", ["ptx", "spirv", "native"])
def test_hit_is_byte_identical_to_a_fresh_compile(cache_dir: Path, target: str) -> None:
    miss = gpuc.compile(SAXPY, target)
    hit = gpuc.compile(SAXPY, target)
    fresh = gpuc.compile(SAXPY, target, cache=False)
    assert (miss.cache, hit.cache, fresh.cache) == ("miss", "hit", "off")
    assert hit.artefact == fresh.artefact and type(hit.artefact) is type(fresh.artefact)
    assert hit.llvm_ir == fresh.llvm_ir
    assert hit.signatures == fresh.signatures


def test_hit_runs(cache_dir: Path) -> None:
    import numpy as np

    gpuc.compile(SAXPY, "native")
    mod = gpuc.compile(SAXPY, "native")
    assert mod.cache == "hit"
    rng = np.random.default_rng()
    n = 1000
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    want = np.float32(3) * x + y
    mod["saxpy"][(n + 127) // 128, 128](np.float32(3), x, y, np.int32(n))
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_corrupt_entry_is_replaced(cache_dir: Path) -> None:
    gpuc.compile(SAXPY, "ptx")
    (entry,) = (p for p in (Cache().folder / "compile").rglob("*") if p.is_file())
    good = entry.read_bytes()
    for broken in (good[: len(good) // 2], good[:-1] + b"\x00", b"garbage", b""):
        entry.write_bytes(broken)
        mod = gpuc.compile(SAXPY, "ptx")
        assert mod.cache == "miss"
        assert entry.read_bytes() == good
        assert gpuc.compile(SAXPY, "ptx").cache == "hit"


def _writer(directory: str, worker: int, rounds: int) -> list[str]:
    cache = Cache(directory)
    seen = []
    for i in range(rounds):
        payload = bytes([worker]) * (20_000 + 37 * i)
        cache.put("compile", "ab" + "0" * 62, Entry({"data": payload}, {"w": worker}))
        got = cache.get("compile", "ab" + "0" * 62)
        assert got is not None
        data = got.blobs["data"]
        assert data == bytes([data[0]]) * len(data)
        assert got.meta["w"] == data[0]
        seen.append(f"{data[0]}:{len(data)}")
    return seen


def test_concurrent_writers_never_tear_an_entry(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.starmap(_writer, [(str(tmp_path), w, 40) for w in range(4)])
    assert all(len(r) == 40 for r in results)
    leftovers = [p for p in tmp_path.rglob(".tmp-*")]  # none, in any folder
    assert leftovers == []
    assert Cache(tmp_path).info().entries == 1


def test_size_bound_evicts_least_recently_used(tmp_path: Path) -> None:
    cache = Cache(tmp_path, max_bytes=20_000)
    keys = [f"{i:02d}" + "f" * 62 for i in range(30)]
    for i, k in enumerate(keys):
        cache.put("compile", k, Entry({"data": bytes(1000)}))
        os.utime(cache.path("compile", k), (1_000_000 + i, 1_000_000 + i))
        if i == 10:
            assert cache.get("compile", keys[0]) is not None  # used now: kept
    info = cache.info()
    assert 0 < info.bytes <= 20_000
    assert cache.get("compile", keys[-1]) is not None
    assert cache.get("compile", keys[1]) is None
    assert cache.get("compile", keys[0]) is not None


def test_a_write_scans_only_once_its_count_passes_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eviction's bookkeeping (issue 23): writes below the bound never list
    the cache; past it, one scan evicts to 90% of the bound, and the next
    waits for a tenth of the bound to be written."""
    scans: list[int] = []
    real = Cache._evict

    def counted(self: Cache, folder: int, bound: int) -> int:
        scans.append(bound)
        return real(self, folder, bound)

    monkeypatch.setattr(Cache, "_evict", counted)
    cache = Cache(tmp_path, max_bytes=100_000)
    for i in range(60):
        cache.put("compile", f"{i:02x}" * 32, Entry({"data": bytes(1000)}))
    assert scans == [90_000]  # the first write, which found no count
    scans.clear()
    for i in range(60, 200):
        cache.put("compile", f"{i:02x}" * 32, Entry({"data": bytes(1000)}))
        assert cache.info().bytes <= 100_000
    assert 1 <= len(scans) <= 20 and set(scans) == {90_000}, scans  # not 140


def test_switches_and_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPUC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "gpuc"
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "moved"))
    assert default_directory() == tmp_path / "moved"
    monkeypatch.setenv("GPUC_CACHE_MAX_BYTES", "12345")
    assert Cache().max_bytes == 12345

    monkeypatch.setenv("GPUC_CACHE", "0")
    assert gpuc.compile(SAXPY, "ptx").cache == "off"
    assert gpuc.compile(SAXPY, "ptx", cache=True).cache == "miss"
    monkeypatch.setenv("GPUC_CACHE", "1")
    assert gpuc.compile(SAXPY, "ptx").cache == "hit"
    assert gpuc.compile(SAXPY, "ptx", cache=False).cache == "off"
    assert not (tmp_path / "xdg").exists()
    assert Cache().info().entries == 1


def compile_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["compile", *args])
    return code, capsys.readouterr().err


def test_cli_source_key_and_report(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "saxpy.mlir"
    src.write_text(SAXPY)
    outs = [tmp_path / f"out{i}.ptx" for i in range(4)]
    code, err = compile_cli(
        capsys, str(src), "--target", "ptx", "-o", str(outs[0]), "-v"
    )
    assert code == 0 and "gpuc: cache miss" in err, err
    code, err = compile_cli(
        capsys, str(src), "--target", "ptx", "-o", str(outs[1]), "-v"
    )
    assert code == 0 and "gpuc: cache hit (source key" in err, err
    # Other bytes, the same module: the source key misses, the module key hits.
    src.write_text("// edited\n" + SAXPY)
    code, err = compile_cli(
        capsys, str(src), "--target", "ptx", "-o", str(outs[2]), "-v"
    )
    assert code == 0 and "gpuc: cache hit (module key" in err, err
    code, err = compile_cli(
        capsys, str(src), "--target", "ptx", "-o", str(outs[3]), "--no-cache", "-v"
    )
    assert code == 0 and "gpuc: cache off" in err, err
    assert len({o.read_bytes() for o in outs}) == 1


@pytest.mark.parametrize(
    "flags",
    [["-O0"], ["--no-fp-contract"], ["--emit", "llvm"], ["--target", "spirv"]],
)
def test_cli_source_key_covers_flags(
    cache_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
) -> None:
    """A flag the first compile lacked is never served its output."""
    plain = tmp_path / "plain.out"
    assert main(["compile", str(EXAMPLES / "saxpy.mlir"), "-o", str(plain)]) == 0
    served, fresh = tmp_path / "served.out", tmp_path / "fresh.out"
    args = ["compile", str(EXAMPLES / "saxpy.mlir"), *flags]
    assert main([*args, "-o", str(served)]) == 0
    assert main([*args, "-o", str(fresh), "--no-cache"]) == 0
    assert served.read_bytes() == fresh.read_bytes() != plain.read_bytes()
    capsys.readouterr()


def test_cli_library_change_is_not_served_stale(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, lib, out = tmp_path / "k.mlir", tmp_path / "lib.mlir", tmp_path / "k.ll"
    src.write_text(CALLS_LIB)
    lib.write_text(LIB)
    args = [
        "compile",
        str(src),
        "--library",
        str(lib),
        "--emit",
        "llvm",
        "-o",
        str(out),
    ]
    assert main(args) == 0 and main(args) == 0
    assert "fadd" in out.read_text()
    lib.write_text(LIB.replace("arith.addf", "arith.mulf"))
    assert main(args) == 0
    assert "fmul" in out.read_text() and "fadd" not in out.read_text()
    capsys.readouterr()


def test_source_key_parts() -> None:
    base = source_key(b"x", [b"lib"], [("opt_level", "3")])
    assert source_key(b"y", [b"lib"], [("opt_level", "3")]) != base
    assert source_key(b"x", [b"lib2"], [("opt_level", "3")]) != base
    assert source_key(b"x", [b"lib"], [("opt_level", "2")]) != base
    assert source_key(b"x", [b"lib"], [("opt_level", "3")]) == base


def test_cache_command(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpuc.compile(SAXPY, "ptx")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(cache_dir) in out and "entries:   1" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert Cache().info().entries == 0


def test_native_object_api(tmp_path: Path) -> None:
    ir = "define void @f() {\n  ret void\n}\n"
    k = native_object_key(ir, "znver4", "+avx2")
    assert len({k, native_object_key(ir + " ", "znver4", "+avx2")}) == 2
    assert native_object_key(ir, "skylake", "+avx2") != k
    assert native_object_key(ir, "znver4", "+avx512f") != k
    cache = Cache(tmp_path)
    assert cache.get_bytes("native", k) is None
    assert cache.put_bytes("native", k, b"\x7fELF object")
    assert cache.get_bytes("native", k) == b"\x7fELF object"
    assert (cache.hits, cache.misses) == (1, 1)


def test_unwritable_directory_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(blocker / "cache"))
    assert gpuc.compile(SAXPY, "ptx").cache == "miss"


def test_key_is_the_same_in_every_process() -> None:
    """No hash seed, address or set order reaches a key."""
    import subprocess
    import sys

    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from test_cache import key, GENERATED, Mine; "
        "print(key(GENERATED, generators={'mine': Mine()}, sm=80))"
    )
    tests = str(Path(__file__).resolve().parent)
    keys = {
        subprocess.run(
            [sys.executable, "-c", script, tests],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert len(keys) == 1 and len(keys.pop()) == 64
