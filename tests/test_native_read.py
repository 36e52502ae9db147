"""What the fast reader knows as it reads (gpuc/reader/fast.py,
`read_module_natively`): whether a module holds nothing for the import. It
must agree with the import's own walk (`has_foreign_ops`) wherever it says
so, and the driver skips that walk only on the module its parse stage read:
a ModuleOp given by the caller is walked as before."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import gpuc.transforms.import_foreign as import_foreign
from gpuc.context import make_context
from gpuc.driver import load_module, make_options, run
from gpuc.reader.fast import read_module_natively
from gpuc.transforms.convert_foreign_to_gpuc import has_foreign_ops

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from scale import gpuc_kernel, module_text  # noqa: E402

TEXTS = sorted([*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/filecheck/**/*.mlir")])


def test_the_readers_answer_agrees_with_the_imports_walk() -> None:
    native_read = 0
    for path in TEXTS:
        read = read_module_natively(path.read_text(), make_context(), str(path))
        if read is None:
            continue
        module, native = read
        if native:
            native_read += 1
            assert not has_foreign_ops(module), path
    assert native_read >= 5


@pytest.mark.parametrize("type", ["memref<4xf32>", "vector<2x2xf32>", "tensor<4xf32>"])
def test_a_foreign_type_the_reader_interns_makes_it_not_know(type: str) -> None:
    text = f"gpuc.func @k(%a: {type}) kernel {{\n  gpuc.return\n}}\n"
    read = read_module_natively(text, make_context(), "<t>")
    assert read is not None, "the fast reader left the text to xDSL's parser"
    module, native = read
    assert not native
    assert has_foreign_ops(module)


def count_walks(monkeypatch: pytest.MonkeyPatch) -> list[ModuleOp]:
    walked: list[ModuleOp] = []
    real = import_foreign.has_foreign_ops

    def counting(module: ModuleOp) -> bool:
        walked.append(module)
        return real(module)

    monkeypatch.setattr(import_foreign, "has_foreign_ops", counting)
    return walked


def test_the_driver_skips_the_walk_on_text_it_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked = count_walks(monkeypatch)
    text = module_text(3, gpuc_kernel)
    for target in ("ptx", None):  # the target named, or the module's own
        c = run(text, make_options(target, {}), stop_after="dialect")
        assert c.native is c.module
    assert walked == []


def test_a_module_given_or_replaced_after_parse_is_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked = count_walks(monkeypatch)
    text = module_text(3, gpuc_kernel)
    given = load_module(text)
    run(given, make_options("ptx", {}), stop_after="dialect")
    assert walked == [given]

    replaced = load_module(text)

    def replace_it(name: str, c: object) -> None:
        if name == "parse":
            c.module = replaced  # type: ignore[attr-defined]

    run(text, make_options("ptx", {}), stop_after="dialect", after_stage=replace_it)
    assert walked == [given, replaced]
