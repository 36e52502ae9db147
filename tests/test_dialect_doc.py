"""docs/dialect.md against the dialect's definitions: every op the gpuc dialect
registers has a section and every section names a registered op; each
section's syntax line shows the op's keywords; each example parses, verifies,
uses the op it documents, and is written as gpuc-opt prints it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.irdl import IRDLOperation

from gpuc.context import make_context
from gpuc.diagnostics import verify_located
from gpuc.dialects.gpuc import GPUC
from gpuc.reader.text import parse_foreign_module

DOC = Path(__file__).resolve().parent.parent / "docs" / "dialect.md"
HEADING = re.compile(r"^### `(gpuc\.[a-z_]+)`$", re.MULTILINE)
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
OPS: dict[str, type[IRDLOperation]] = {op.name: op for op in GPUC.operations}


def sections() -> dict[str, str]:
    """Op name -> the text of its section (up to the next heading)."""
    text = DOC.read_text()
    found: dict[str, str] = {}
    marks = list(HEADING.finditer(text))
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following else len(text)
        body = text[mark.end() : end].split("\n## ")[0]
        assert mark.group(1) not in found, f"{mark.group(1)} has two sections"
        found[mark.group(1)] = body
    return found


def blocks(body: str, language: str) -> list[str]:
    return [code for lang, code in FENCE.findall(body) if lang == language]


def parse(code: str, name: str) -> ModuleOp:
    module = parse_foreign_module(code, make_context(), name)
    verify_located(module)
    return module


def test_every_registered_op_has_a_section_and_every_section_an_op() -> None:
    documented = set(sections())
    assert sorted(set(OPS) - documented) == [], "ops without a section"
    assert sorted(documented - set(OPS)) == [], "sections of ops that do not exist"


@pytest.mark.parametrize("name", sorted(OPS))
def test_syntax_shows_the_ops_keywords(name: str) -> None:
    body = sections()[name]
    (syntax, *_) = blocks(body, "text")
    assert name in syntax
    # The declarative format's literal words (`grid`, `align`, `to`, ...).
    words = re.findall(r"`([a-z_]+)`", OPS[name].assembly_format or "")
    missing = [w for w in words if not re.search(rf"\b{w}\b", syntax)]
    assert missing == [], f"{name}: the syntax omits {missing}"


@pytest.mark.parametrize("name", sorted(OPS))
def test_example_parses_verifies_and_uses_the_op(name: str) -> None:
    examples = blocks(sections()[name], "mlir")
    assert examples, f"{name} has no example"
    for code in examples:
        module = parse(code, f"docs/dialect.md ({name})")
        assert any(op.name == name for op in module.walk()), (
            f"the example of {name} does not use it"
        )
        # Written as it prints: what the page shows is the op's real syntax.
        printed = str(module).splitlines()[1:-1]
        assert [line.strip() for line in printed] == [
            line.strip() for line in code.strip().splitlines()
        ]


def test_an_example_that_does_not_verify_is_caught() -> None:
    """The check above can fail: a store through constant memory is refused."""
    bad = (
        "gpuc.func @k(%p: !gpuc.ptr<f32, constant>, %v: f32) kernel {\n"
        "  gpuc.store %v, %p : !gpuc.ptr<f32, constant>\n"
        "  gpuc.return\n}\n"
    )
    from xdsl.utils.exceptions import DiagnosticException

    with pytest.raises(DiagnosticException, match="constant memory"):
        parse(bad, "bad")
