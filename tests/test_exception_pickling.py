"""Every exception class of gpuc pickles and unpickles to an equal exception
(same type, args, attributes, notes and `str()`), so an error raised in a
worker (`compile_many`'s process pool, Dask, Ray) reaches the caller as
itself, and the pool keeps working."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import gpuc
from gpuc.diagnostics import OpError

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples" / "saxpy.mlir")
PACKAGES = ("gpuc", "gpuc.dialects", "gpuc.transforms", "gpuc.lowering")


def exception_classes() -> list[type[BaseException]]:
    """Every exception class defined in gpuc's packages (each module imported)."""
    found: dict[str, type[BaseException]] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, f"{name}."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, BaseException)
                    and value.__module__.startswith("gpuc")
                ):
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


def an_op() -> object:
    from gpuc.driver import make_options, run

    c = run(SAXPY, make_options("ptx", {}), stop_after="parse")
    assert c.module is not None
    return next(op for op in c.module.walk() if op.name == "gpuc.func")


def parse_error() -> BaseException:
    from gpuc.diagnostics import SourceParseError

    try:
        gpuc.compile("gpuc.func @k( kernel {\n}\n", target="ptx")
    except SourceParseError as e:
        return e
    raise AssertionError("the text parsed")


def kernel_error(cls: type[BaseException]) -> BaseException:
    from gpuc.python.source import Where

    return cls(Where("k.py", 3, 5), "is wrong; do this")


MAKERS: dict[str, Callable[[type[BaseException]], BaseException]] = {
    "gpuc.diagnostics.OpError": lambda cls: cls(an_op(), "is wrong; do this"),
    "gpuc.transforms.symbol_uses.UnknownSymbolTableError": lambda cls: cls(
        an_op(), "cannot see through it"
    ),
    "gpuc.diagnostics.SourceParseError": lambda cls: parse_error(),
    "gpuc.python.loops.Retry": lambda cls: cls("acc", gpuc.f64),
    "gpuc.python.source.KernelError": lambda cls: kernel_error(cls),
}
"""How to make the exceptions whose `__init__` takes something else than a
message (the others are made with one string)."""


def instances() -> Iterator[BaseException]:
    for cls in exception_classes():
        make = MAKERS.get(f"{cls.__module__}.{cls.__qualname__}")
        error = make(cls) if make else cls("something went wrong: 'x' at 1:2")
        error.add_note("a note")
        yield error


def test_the_package_has_the_exception_classes_expected() -> None:
    names = {c.__qualname__ for c in exception_classes()}
    assert {"OpError", "SourceParseError", "OptionError", "LaunchError"} <= names
    assert len(names) >= 15


@pytest.mark.parametrize("error", list(instances()), ids=lambda e: type(e).__name__)
def test_every_exception_pickles_to_an_equal_one(error: BaseException) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert copy.args == error.args
    assert str(copy) == str(error)
    assert getattr(copy, "__notes__", None) == ["a note"]
    mine = {k: v for k, v in vars(error).items() if k != "op"}
    theirs = {k: v for k, v in vars(copy).items() if k != "text" or "text" in mine}
    assert theirs == mine
    assert pickle.loads(pickle.dumps(copy)).args == error.args  # and again


def test_an_unpickled_op_error_keeps_its_diagnostic() -> None:
    error = OpError(an_op(), "is wrong")  # type: ignore[arg-type]
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert str(copy).startswith(f"{SAXPY}:") and "'gpuc.func' op is wrong" in str(copy)
    assert copy.message == "is wrong" and not hasattr(copy, "op")


UNVERIFIED = """gpuc.func @k(%a: f32) -> f32 kernel {
  gpuc.return %a : f32
}
"""


def test_compile_many_on_the_default_pool_raises_the_failing_variants_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One variant fails to verify (an OpError, which once did not unpickle
    and broke the pool): its own error is raised, the other variants were
    compiled (they are in the cache), and a pool given survives."""
    monkeypatch.setenv("GPUC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GPUC_CACHE", raising=False)
    bad = tmp_path / "bad.mlir"
    bad.write_text(UNVERIFIED)
    good = [
        {"source": SAXPY, "target": "ptx", "opt_level": 1},
        {"source": SAXPY, "target": "spirv", "opt_level": 1},
    ]
    with pytest.raises(OpError) as serial:
        gpuc.compile(str(bad))
    with pytest.raises(OpError) as pooled:
        gpuc.compile_many([good[0], {"source": str(bad)}, good[1]], jobs=2)
    assert str(pooled.value) == str(serial.value)
    assert "bad.mlir:1:1: error: 'gpuc.func' op kernel @k returns" in str(pooled.value)
    for variant in good:
        assert gpuc.compile(**variant).cache == "hit"  # type: ignore[arg-type]
    with ProcessPoolExecutor(2) as pool:
        with pytest.raises(OpError):
            gpuc.compile_many([{"source": str(bad)}, good[0]], executor=pool)
        assert [m.cache for m in gpuc.compile_many(good, executor=pool)] == [
            "hit",
            "hit",
        ]
