"""The distribution: the sdist holds the whole repository a user needs to run
the tests (lit's and pytest's, with their helpers, inputs, examples and docs),
builds a wheel, and its tests run from the unpacked tree; the metadata says
`License-Expression: Apache-2.0` with the LICENSE file; the package is typed
(`py.typed`); lit marks the tests that need an optional tool with `REQUIRES`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# What the tests, lit and Python leave in the tree, which no distribution holds.
LEFT_BEHIND = re.compile(
    r"(^|/)(__pycache__|Output|\.pytest_cache|\.lit_test_times\.txt)(/|$)|\.py[cod]$"
)
SHIPPED_DIRS = ("tests", "examples", "bench", "docs", ".ci")
TOP_FILES = ("LICENSE", "README.md", "pyproject.toml", "lit.cfg.py", "MANIFEST.in")


def project() -> dict[str, Any]:
    import tomllib

    data: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data


def files_under(top: Path, suffix: str = "") -> Iterator[str]:
    for path in sorted(top.rglob(f"*{suffix}")):
        relative = path.relative_to(ROOT).as_posix()
        if path.is_file() and not LEFT_BEHIND.search(relative):
            yield relative


def expected_files() -> set[str]:
    """What the sdist must hold: the top files, every file of the shipped
    directories, and the Python modules of every package directory."""
    expected = set(TOP_FILES)
    for directory in SHIPPED_DIRS:
        expected.update(files_under(ROOT / directory))
    expected.update(files_under(ROOT / "gpuc", ".py"))
    return expected


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist built from this tree (offline: no build isolation)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", out, ROOT],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (archive,) = out.glob("gpuc-*.tar.gz")
    return archive


@pytest.fixture(scope="module")
def unpacked(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as archive:
        archive.extractall(where, filter="data")
    (root,) = where.iterdir()
    return root


def source_packages() -> list[str]:
    """Every package directory of the tree (one with an `__init__.py`)."""
    return [
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in sorted((ROOT / "gpuc").rglob("__init__.py"))
        if not LEFT_BEHIND.search(init.as_posix())
    ]


def test_every_package_directory_is_found() -> None:
    """pyproject's `packages.find` finds every package directory of gpuc/
    (a new target's folder needs no edit there), and nothing else."""
    from setuptools import find_packages

    find = project()["tool"]["setuptools"]["packages"]["find"]
    found = find_packages(str(ROOT / find["where"][0]), include=find["include"])
    assert sorted(found) == sorted(source_packages())


def test_sdist_holds_the_tests_examples_docs_and_license(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        prefix = archive.getnames()[0].split("/")[0] + "/"
        names = {n.removeprefix(prefix) for n in archive.getnames()}
        metadata = archive.extractfile(prefix + "PKG-INFO")
        assert metadata is not None
        info = metadata.read().decode()
    missing = sorted(expected_files() - names)
    assert missing == [], f"missing from the sdist: {missing}"
    assert not [n for n in names if LEFT_BEHIND.search(n)]
    assert "License-Expression: Apache-2.0\n" in info
    assert "License-File: LICENSE\n" in info
    assert f"Version: {project()['project']['version']}\n" in info


def test_license_is_the_apache_license() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert project()["project"]["license"] == "Apache-2.0"


def test_the_unpacked_sdist_builds_a_typed_wheel(
    unpacked: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", tmp_path],
        cwd=unpacked,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = tmp_path.glob("gpuc-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        info = archive.read(metadata).decode()
    assert "gpuc/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: Apache-2.0\n" in info
    for package in source_packages():
        assert package.replace(".", "/") + "/__init__.py" in names, package
    # Nothing outside the one import package (no top-level `dialects`).
    tops = {n.split("/")[0] for n in names if not n.startswith("gpuc-")}
    assert tops == {"gpuc"}


def test_the_installed_package_is_typed() -> None:
    from importlib.resources import files

    assert files("gpuc").joinpath("py.typed").is_file()


def test_tests_run_from_the_unpacked_sdist(unpacked: Path) -> None:
    """A few lit files and a pytest module, run from the unpacked tree (against
    the installed gpuc), pass as they do from a clone."""
    lit = subprocess.run(
        [
            BIN / "lit",
            "-q",
            "tests/filecheck/driver/split_input.mlir",
            "tests/filecheck/dialects/index.mlir",
        ],
        cwd=unpacked,
        capture_output=True,
        text=True,
    )
    assert lit.returncode == 0, lit.stdout + lit.stderr
    pytest_run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_dialect_doc.py",
        ],
        cwd=unpacked,
        capture_output=True,
        text=True,
    )
    assert pytest_run.returncode == 0, pytest_run.stdout + pytest_run.stderr
    assert " passed" in pytest_run.stdout and "failed" not in pytest_run.stdout


def lit_features(monkeypatch: pytest.MonkeyPatch, *, tools: bool) -> set[str]:
    """The features lit.cfg.py declares, with gpuc's tool finders working or
    all failing (as on a machine without the test extra)."""
    import gpuc.tools

    if not tools:
        for finder in ("spirv_tool", "ptxas", "libdevice", "llvm_tool"):

            def missing(*args: str) -> None:
                raise gpuc.tools.ToolError("not found")

            monkeypatch.setattr(gpuc.tools, finder, missing)

    class Config:
        def __init__(self) -> None:
            self.environment: dict[str, str] = {}
            self.substitutions: list[tuple[str, str]] = []
            self.available_features: set[str] = set()

    config = Config()
    source = (ROOT / "lit.cfg.py").read_text()
    exec(
        compile(source, str(ROOT / "lit.cfg.py"), "exec"),
        {"config": config, "__file__": str(ROOT / "lit.cfg.py")},
    )
    return config.available_features


TOOL_FEATURES: dict[str, tuple[str, ...]] = {
    "spirv-dis": ("spirv_tool", "spirv-dis"),
    "spirv-val": ("spirv_tool", "spirv-val"),
    "ptxas": ("ptxas",),
    "libdevice": ("libdevice",),
    "ld.lld": ("llvm_tool", "ld.lld"),
    "llvm-objdump": ("llvm_tool", "llvm-objdump"),
    "llvm-readelf": ("llvm_tool", "llvm-readelf"),
}


def found(finder: str, *args: str) -> bool:
    import gpuc.tools

    try:
        getattr(gpuc.tools, finder)(*args)
    except gpuc.tools.ToolError:
        return False
    return True


def test_lit_features_follow_the_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    here = {f for f, (finder, *args) in TOOL_FEATURES.items() if found(finder, *args)}
    assert lit_features(monkeypatch, tools=True) & set(TOOL_FEATURES) == here
    assert not set(TOOL_FEATURES) & lit_features(monkeypatch, tools=False)


# A RUN line's output needing a tool: `-t spirv` prints spirv-dis's listing;
# `-t amdgpu` links with ld.lld (an expected failure, `not`, needs neither).
NEEDS = {
    "spirv-dis": re.compile(r"(?<!not )gpuc-opt [^|]*-t '?spirv\b"),
    "ld.lld": re.compile(r"(?<!not )gpuc-opt [^|]*-t '?amdgpu\b"),
}


@pytest.mark.parametrize(
    "path", list(files_under(ROOT / "tests" / "filecheck", ".mlir")), ids=str
)
def test_lit_files_require_the_tools_they_run(path: str) -> None:
    text = (ROOT / path).read_text()
    runs = "\n".join(re.findall(r"^// RUN: (.*)$", text, re.MULTILINE))
    required = set(re.findall(r"^// REQUIRES: (.*)$", text, re.MULTILINE))
    for feature, pattern in NEEDS.items():
        if pattern.search(runs):
            assert feature in ", ".join(required), f"{path} needs REQUIRES: {feature}"
    if "-t ptx" in runs and re.search(r"\bmath\.", text):
        assert "libdevice" in ", ".join(required), f"{path} needs libdevice"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_nothing_tracked_is_left_out(sdist: Path) -> None:
    """Every file git tracks is in the sdist (in a clone; an unpacked sdist
    has no git history and checks nothing here)."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True
    )
    if tracked.returncode != 0:
        pytest.skip("not a git clone (an unpacked sdist)")
    with tarfile.open(sdist) as archive:
        prefix = archive.getnames()[0].split("/")[0] + "/"
        names = {n.removeprefix(prefix) for n in archive.getnames()}
    missing = sorted(set(tracked.stdout.split()) - names)
    assert missing == [], f"tracked but missing from the sdist: {missing}"


def test_a_clone_root_named_gpuc_does_not_shadow_the_package(tmp_path: Path) -> None:
    """A script next to a clone whose root directory is named `gpuc` (what
    `git clone .../gpuc` makes) imports the installed package, not the clone
    root as an empty namespace package: the editable install is a path entry
    the path finder searches in order, not a meta-path finder behind it."""
    (tmp_path / "gpuc").symlink_to(ROOT, target_is_directory=True)
    script = tmp_path / "script.py"
    script.write_text(
        "import gpuc\n"
        "from gpuc.dialects.call_graph import call_graph\n"
        "print(gpuc.__file__ is not None, callable(gpuc.compile))\n"
        "print(call_graph.__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "call_graph"]


def test_metadata_has_classifiers_urls_and_an_opencl_extra(sdist: Path) -> None:
    """Every classifier is one PyPI knows; the project's addresses and the
    extras a user installs for each executor are in the metadata."""
    from trove_classifiers import classifiers

    with tarfile.open(sdist) as archive:
        prefix = archive.getnames()[0].split("/")[0] + "/"
        metadata = archive.extractfile(prefix + "PKG-INFO")
        assert metadata is not None
        info = metadata.read().decode()
    declared = project()["project"]
    assert declared["classifiers"] and set(declared["classifiers"]) <= classifiers
    for classifier in declared["classifiers"]:
        assert f"Classifier: {classifier}\n" in info
    for label in ("Homepage", "Documentation", "Source", "Issues"):
        assert f"Project-URL: {label}, https://" in info
    for extra in ("opencl", "cuda", "test"):
        assert f"Provides-Extra: {extra}\n" in info
    opencl = " ".join(declared["optional-dependencies"]["opencl"])
    for needed in ("pyopencl", "intel-opencl-rt", "intel-cmplr-lib-rt"):
        assert needed in opencl
