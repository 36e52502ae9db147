"""The fast reader (gpuc/reader/fast.py) builds exactly the module xDSL's
parser builds -- ops, properties, result names, implicit terminators and
`file:line:col` locations, compared as generic text with locations -- or
declines and leaves the text to xDSL's parser; it never accepts text the
parser rejects."""

from __future__ import annotations

import io
import random
import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from gpuc.context import make_context
from gpuc.driver import load_module
from gpuc.reader.fast import read_module
from gpuc.reader.text import ForeignParser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from scale import gpuc_kernel, module_text  # noqa: E402

GPUC_TEXTS = sorted(
    p
    for p in [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/filecheck/**/*.mlir")]
    if "gpuc.func" in p.read_text()
)


def generic(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(
        module
    )
    return out.getvalue()


def slow(text: str, name: str = "<t>") -> ModuleOp:
    return ForeignParser(make_context(), text, name, 0).parse_module(True)


def test_the_fast_reader_builds_what_the_parser_builds_on_every_gpuc_text() -> None:
    read = []
    for path in GPUC_TEXTS:
        text = path.read_text()
        fast = read_module(text, make_context(), str(path))
        if fast is None:
            continue
        read.append(path.relative_to(ROOT).as_posix())
        assert generic(fast) == generic(slow(text, str(path))), path
    # The reader covers the common kernels, not only the bench's module.
    for example in ("saxpy", "stencil2d", "histogram", "reduce", "deferred_inline"):
        assert f"examples/{example}.mlir" in read, read


def test_the_bench_module_is_read_fast_and_the_same() -> None:
    text = module_text(4, gpuc_kernel)
    fast = read_module(text, make_context(), "<t>", line_offset=7)
    assert fast is not None
    reference = ForeignParser(make_context(), text, "<t>", 7).parse_module(True)
    assert generic(fast) == generic(reference)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # An undefined value, a redefinition, a mistyped operand, an unknown op:
        # the reader declines and the parser's diagnostic is the one reported.
        (
            "gpuc.func @k(%a: f32) kernel {\n  %b = arith.addf %a, %c : f32\n"
            "  gpuc.return\n}\n",
            "%c",
        ),
        (
            "gpuc.func @k(%a: f32) kernel {\n  %a = arith.addf %a, %a : f32\n"
            "  gpuc.return\n}\n",
            "already defined",
        ),
        (
            "gpuc.func @k(%a: i32) kernel {\n  %b = arith.addf %a, %a : f32\n"
            "  gpuc.return\n}\n",
            "i32",
        ),
        (
            "gpuc.func @k(%a: f32) kernel {\n  %b = arith.frobnicate %a : f32\n"
            "  gpuc.return\n}\n",
            "arith.frobnicate",
        ),
        (
            "gpuc.func @k(%p: !gpuc.ptr<i8, global>) kernel {\n"
            "  %c = arith.constant 300 : i8\n"
            "  gpuc.store %c, %p : !gpuc.ptr<i8, global>\n  gpuc.return\n}\n",
            "out of range",
        ),
    ],
)
def test_bad_text_gets_the_parsers_diagnostic(text: str, message: str) -> None:
    assert read_module(text, make_context(), "<t>") is None
    with pytest.raises(ParseError, match=re.escape(message)) as error:
        load_module(text)
    assert ":2:" in str(error.value)  # located at the bad line


@pytest.mark.parametrize("source", ["bench", "reduce"])
def test_mutated_text_is_read_the_same_or_declined(source: str) -> None:
    """Fresh random damage to a module (a token dropped, doubled or swapped):
    the reader either declines or builds what the parser builds; where the
    parser rejects the text, the reader never accepts it."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    if source == "bench":
        text = module_text(1, gpuc_kernel)
    else:
        text = (ROOT / "examples" / f"{source}.mlir").read_text()
    tokens = re.findall(r"\s+|[%@!#^]?[\w.$-]+|->|.", text)
    for _ in range(120):
        damaged = list(tokens)
        at = rng.randrange(len(damaged))
        how = rng.choice(("drop", "double", "swap"))
        if how == "drop":
            del damaged[at]
        elif how == "double":
            damaged.insert(at, damaged[at])
        else:
            other = rng.randrange(len(damaged))
            damaged[at], damaged[other] = damaged[other], damaged[at]
        mutated = "".join(damaged)
        fast = read_module(mutated, make_context(), "<t>")
        try:
            reference = generic(slow(mutated))
        except Exception:
            assert fast is None, f"seed {seed}: accepted what the parser rejects"
            continue
        if fast is not None:
            assert generic(fast) == reference, f"seed {seed}: {how} at {at}"


_KERNEL = (
    "gpuc.func @k(%a: f32) kernel {\n  %b = arith.addf %a, %a : f32\n  gpuc.return\n}"
)


@pytest.mark.parametrize(
    "text",
    [
        _KERNEL + "\n// a comment at the end",
        _KERNEL + "  // a comment\n\n  ",
        "// first\n  // second\n" + _KERNEL,
        _KERNEL.replace("kernel {", "kernel { // the body\n"),
    ],
)
def test_comments_and_white_space_anywhere_are_skipped(text: str) -> None:
    fast = read_module(text, make_context(), "<t>")
    assert fast is not None
    assert generic(fast) == generic(slow(text))


@pytest.mark.parametrize(
    "text",
    [
        # A character that starts no token, wherever it is: the parser reads
        # the text (and reports it), even where a comment follows.
        _KERNEL.replace("%b =", "%b ~="),
        _KERNEL.replace("%a, %a", "%a, ~// x\n %a"),
        _KERNEL + "\n~",
        _KERNEL + "\n  ~// x",
        "~" + _KERNEL,
        # White space to Python's str methods but not to xDSL's lexer.
        _KERNEL.replace("%b =", "%b\u00a0="),
        _KERNEL.replace("%b =", "%b\u2028="),
        _KERNEL.replace("%b =", "%b\x85="),
        _KERNEL.replace("%b =", "%b\u3000="),
    ],
)
def test_a_stray_character_is_declined(text: str) -> None:
    assert read_module(text, make_context(), "<t>") is None


def test_ops_are_made_field_by_field_as_create_makes_them() -> None:
    """The fast reader makes its ops without `Operation.create` (`build_op`)
    and links them into their blocks without `add_op` (`_append`): every op
    of the bench's module and of the examples it reads has the fields, of
    the same classes and values, that `create` gives it, and every block's
    links are whole."""
    from xdsl.ir import Operation, Use

    texts = [module_text(2, gpuc_kernel)] + [
        (ROOT / "examples" / f"{name}.mlir").read_text()
        for name in ("saxpy", "stencil2d", "histogram", "reduce", "deferred_inline")
    ]
    placement = {"parent", "_next_op", "_prev_op", "location", "regions"}
    seen: set[str] = set()
    for text in texts:
        module = read_module(text, make_context(), "<t>")
        assert module is not None
        for op in module.walk():
            if isinstance(op, ModuleOp):
                continue
            seen.add(op.name)
            made = type(op).create(
                operands=op.operands,
                result_types=op.result_types,
                properties=op.properties,
                regions=[],
            )
            fields = set(vars(op)) - placement
            assert fields == set(vars(made)) - placement, op.name
            for name in fields:
                assert type(vars(op)[name]) is type(vars(made)[name]), (op.name, name)
            assert op.operands == made.operands
            assert [(u.operation, u.index) for u in op._operand_uses] == [
                (op, i) for i in range(len(op.operands))
            ]
            assert all(
                set(vars(use)) == set(vars(Use(op, 0)))
                and type(use) is Use
                and (use._prev_use is None or use._prev_use._next_use is use)
                for use in op._operand_uses
            )
            assert all(
                any(use.operation is op for use in value.uses) for value in op.operands
            )
            assert [(r.type, r.op, r.index) for r in op.results] == [
                (r.type, op, r.index) for r in made.results
            ]
            assert op.properties == made.properties, op.name
            assert op.attributes == made.attributes == {}
            assert op._successors == made._successors == ()
            assert all(region.parent is op for region in op.regions)
            assert isinstance(op, Operation)
        for op in module.walk():  # linked into their blocks as add_op links
            for region in op.regions:
                for block in region.blocks:
                    ops = list(block.ops)
                    assert ops == list(reversed(list(reversed(block.ops))))
                    assert all(o.parent is block for o in ops)
                    assert block.first_op is (ops[0] if ops else None)
                    assert block.last_op is (ops[-1] if ops else None)
                    assert [o.prev_op for o in ops] == [None, *ops[:-1]]
    assert {"gpuc.func", "gpuc.call", "gpuc.deferred_call", "scf.if"} <= seen


def test_blocks_are_made_field_by_field_as_their_constructor_makes_them() -> None:
    """The fast reader makes its blocks and their arguments without
    `Block(arg_types=...)` (`_block`): each has the fields, of the same
    classes and values, that the constructor gives it."""
    from xdsl.ir import Block

    module = read_module(module_text(2, gpuc_kernel), make_context(), "<t>")
    assert module is not None
    placement = {"_first_op", "_last_op", "parent", "_next_block", "_prev_block"}
    blocks = [b for op in module.walk() for r in op.regions for b in r.blocks]
    assert any(block.args for block in blocks)
    for block in blocks:
        made = Block(arg_types=block.arg_types)
        assert set(vars(block)) - placement == set(vars(made)) - placement
        for arg, other in zip(block.args, made.args, strict=True):
            names = set(vars(arg)) - {"block", "_name", "first_use"}
            assert names == set(vars(other)) - {"block"}
            for name in names:
                assert vars(arg)[name] == vars(other)[name], name
                assert type(vars(arg)[name]) is type(vars(other)[name]), name
            assert arg.block is block
