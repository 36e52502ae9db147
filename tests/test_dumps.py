"""Per-stage dumps (gpuc/dumps.py): every stage on a miss and the same files
on a cache hit, the filter, the switches, and the reproducer of an internal
error."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import gpuc
from gpuc.cli.main import main
from gpuc.driver import STAGE_FUNCTIONS
from gpuc.transforms.gpuc_pipeline import GpucPipeline

SAXPY = Path(__file__).resolve().parent.parent / "examples" / "saxpy.mlir"


def stages(target: str = "ptx") -> list[str]:
    """The dumped stages of a compile of gpuc text (nothing to import) for
    `target` (its own passes included)."""
    passes = GpucPipeline(target=target).passes(ModuleOp([]))
    return ["parse", *(p.name for p in passes), "translate", "link", "optimize", "emit"]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("GPUC_CACHE", "1")
    monkeypatch.setenv("GPUC_CACHE_DIR", str(directory))
    return directory


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def expected_names(ext: str, target: str = "ptx") -> list[str]:
    exts = {"translate": "ll", "link": "ll", "optimize": "ll", "emit": ext}
    return [f"{i:02d}-{s}.{exts.get(s, 'mlir')}" for i, s in enumerate(stages(target))]


@pytest.mark.parametrize(("target", "ext"), [("ptx", "ptx"), ("spirv", "spirv")])
def test_every_stage_on_a_miss_and_on_a_hit(
    cache_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    target: str,
    ext: str,
) -> None:
    out = tmp_path / "out"
    args = ["compile", str(SAXPY), "--target", target, "-o", str(out)]
    assert main([*args, "--dump-dir", str(tmp_path / "miss"), "-v"]) == 0
    assert "cache miss" in capsys.readouterr().err
    assert main([*args, "--dump-dir", str(tmp_path / "hit"), "-v"]) == 0
    assert "cache hit" in capsys.readouterr().err
    miss, hit = files(tmp_path / "miss" / "saxpy"), files(tmp_path / "hit" / "saxpy")
    names = expected_names(ext, target)
    assert sorted(miss) == sorted(hit) == sorted([*names, "stages.txt"])
    for name in names:
        assert miss[name] == hit[name], name
    assert hit[names[-1]] == out.read_bytes()  # the artefact is what -o got
    named = {name.split("-", 1)[1].split(".")[0]: name for name in names}
    assert b"gpuc.entrypoints" in hit[named["verify-target"]]
    assert b"define" in hit[named["optimize"]]
    manifest = hit["stages.txt"].decode().splitlines()
    assert manifest[0] == "# cache: hit"
    assert f"{named['translate']}\tcache" in manifest
    assert f"{named['link']}\treproduced" in manifest
    assert miss["stages.txt"].decode().startswith("# cache: miss")


def test_filter_keeps_numbers(tmp_path: Path) -> None:
    dump = tmp_path / "d"
    args = [
        "compile",
        str(SAXPY),
        "-o",
        str(tmp_path / "o.ptx"),
        "--dump-dir",
        str(dump),
    ]
    assert main([*args, "--dump-filter", "inline, *-target,optimize"]) == 0
    got = sorted(p.name for p in (dump / "saxpy").iterdir())
    assert got == [
        "01-attach-target.mlir",
        "05-inline.mlir",
        "09-verify-target.mlir",
        "12-optimize.ll",
        "stages.txt",
    ]
    # A later run replaces the earlier files.
    assert main([*args, "--dump-filter", "emit"]) == 0
    assert sorted(p.name for p in (dump / "saxpy").iterdir()) == [
        "13-emit.ptx",
        "stages.txt",
    ]


def test_environment_and_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_dir: Path
) -> None:
    monkeypatch.setenv("GPUC_DUMP_DIR", str(tmp_path / "env"))
    mod = gpuc.compile(str(SAXPY), "native")
    assert sorted(files(tmp_path / "env" / "saxpy")) == sorted(
        [*expected_names("obj", "native"), "stages.txt"]
    )
    monkeypatch.delenv("GPUC_DUMP_DIR")
    # The same file (native artefacts quote source locations, so text read
    # from elsewhere would be another key).
    hit = gpuc.compile(
        str(SAXPY), "native", dump_dir=tmp_path / "api", dump_filter="emit"
    )
    assert hit.cache == "hit"
    dumped = files(tmp_path / "api" / "saxpy")
    names = expected_names("obj", "native")
    assert any(name.endswith("-form-work-groups.mlir") for name in names)
    assert dumped[names[-1]] == mod.artefact == hit.artefact


def test_internal_error_writes_a_reproducer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(c: object) -> None:
        raise RuntimeError("simulated bug in optimize")

    monkeypatch.setitem(STAGE_FUNCTIONS, "optimize", broken)
    monkeypatch.delenv("GPUC_DEBUG", raising=False)
    out = tmp_path / "never.ptx"
    code = main(["compile", str(SAXPY), "--sm", "80", "-O2", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "internal error" in err and not out.exists()
    line = next(ln for ln in err.splitlines() if "a reproducer is in" in ln)
    repro = Path(line.split("a reproducer is in ")[1].split(" (run")[0])
    assert (repro / "input.mlir").read_bytes() == SAXPY.read_bytes()
    script = (repro / "repro.sh").read_text()
    assert "simulated bug in optimize" in script
    assert "gpuc compile input.mlir --sm 80 -O2 --no-cache" in script
    assert str(out) not in script
    # The command line stands on its own (the bug is only in this process).
    run = subprocess.run(
        ["sh", str(repro / "repro.sh"), "-o", str(tmp_path / "again.ptx")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert ".visible .entry saxpy" in (tmp_path / "again.ptx").read_text()


def test_reproducer_goes_to_the_dump_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(c: object) -> None:
        raise RuntimeError("simulated")

    monkeypatch.setitem(STAGE_FUNCTIONS, "emit", broken)
    monkeypatch.delenv("GPUC_DEBUG", raising=False)
    dump = tmp_path / "d"
    assert main(["compile", str(SAXPY), "-o", "-", "--dump-dir", str(dump)]) == 1
    assert f"a reproducer is in {dump / 'saxpy' / 'repro'}" in capsys.readouterr().err
    assert (dump / "saxpy" / "repro" / "repro.sh").is_file()
    assert (dump / "saxpy" / "12-optimize.ll").is_file()  # the stages before it


def test_api_reproducer_with_a_dump_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    def broken(c: object) -> None:
        raise RuntimeError("simulated")

    monkeypatch.setitem(STAGE_FUNCTIONS, "translate", broken)
    with pytest.raises(RuntimeError) as raised:
        gpuc.compile(str(SAXPY), "ptx", dump_dir=tmp_path, sm=80, opt_level=1)
    repro = tmp_path / "saxpy" / "repro"
    assert f"gpuc: a reproducer is in {repro}" in "\n".join(raised.value.__notes__)
    assert (repro / "input.mlir").read_bytes() == SAXPY.read_bytes()
    script = (repro / "repro.py").read_text()
    assert (
        "gpuc.compile('input.mlir', 'ptx', sm=80, opt_level=1, cache=False)" in script
    )
    run = subprocess.run([sys.executable, str(repro / "repro.py")], capture_output=True)
    assert run.returncode == 0, run.stderr


def test_a_full_disk_names_the_dump_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write that fails (here ENOSPC at the fourth stage, as on a full disk,
    where the error of a write names no file) names the dump file, leaves
    none of it behind, and is the error reported (not the manifest's)."""
    import errno

    write_bytes = Path.write_bytes

    def full(path: Path, data: bytes) -> int:
        if path.parent.name == "saxpy" and not path.name.startswith(("00", "01", "02")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_bytes(path, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    monkeypatch.setenv("GPUC_CACHE", "0")
    dumps = tmp_path / "dumps"
    with pytest.raises(OSError) as raised:
        gpuc.compile(str(SAXPY), target="ptx", dump_dir=dumps)
    named = dumps / "saxpy" / f"03-{stages()[3]}.mlir"
    assert raised.value.filename == str(named)
    assert raised.value.errno == errno.ENOSPC
    assert sorted(p.name for p in named.parent.iterdir()) == [
        f"0{i}-{stages()[i]}.mlir" for i in range(3)
    ]
    status = main(["compile", str(SAXPY), "--target", "ptx", "--dump-dir", str(dumps)])
    err = capsys.readouterr().err
    assert status == 1 and f"'{named}': No space left on device" in err, err
