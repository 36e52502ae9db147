"""The entrypoint set on its own: computed once from kernel roles and explicit
exports, written to the module as `gpuc.entrypoints`, and the only thing
`privatize` consults."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from gpuc.context import make_context
from gpuc.dialects.attrs import ENTRYPOINTS_ATTR
from gpuc.transforms.classify_entrypoints import (
    compute_entrypoints,
    read_entrypoints,
    write_entrypoints,
)
from gpuc.transforms.privatize import privatize
from gpuc.transforms.symbol_uses import visibility

MODULE = """
gpuc.func private @h() helper {
  gpuc.return
}
gpuc.func @k1() kernel {
  gpuc.return
}
gpuc.func private @k_private() kernel {
  gpuc.return
}
gpuc.func private @k_decl() kernel
func.func @f() {
  func.return
}
builtin.module @m {
  gpuc.func @inner() kernel {
    gpuc.return
  }
}
"""


def parse(text: str = MODULE) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def visibilities(module: ModuleOp) -> dict[str, str]:
    return {
        name.data: visibility(op)
        for op in module.ops
        if isinstance(name := op.get_attr_or_prop("sym_name"), StringAttr)
    }


def test_kernels_with_bodies_in_module_order() -> None:
    assert compute_entrypoints(parse()) == ["k1", "k_private"]


def test_exports_join_in_module_order() -> None:
    assert compute_entrypoints(parse(), ["@f", "h", "k1"]) == [
        "h",
        "k1",
        "k_private",
        "f",
    ]


@pytest.mark.parametrize(
    ("export", "message"),
    [
        ("nope", "exported symbol @nope is not defined at the top of the module"),
        ("m::inner", "exported symbol @m::inner is not defined at the top"),
        ("k_decl", "@k_decl is a declaration and cannot be exported"),
    ],
)
def test_bad_exports_are_diagnostics(export: str, message: str) -> None:
    with pytest.raises(DiagnosticException, match=message):
        compute_entrypoints(parse(), [export])


def test_unresolved_deferred_ops_are_refused() -> None:
    module = parse(
        """gpuc.func @k(%x: f32) kernel {
          %r = gpuc.deferred_call @h(%x) #gpuc.job<helper> : (f32) -> f32
          gpuc.return
        }"""
    )
    with pytest.raises(DiagnosticException, match="run resolve-deferred first"):
        compute_entrypoints(module)


def test_written_set_reads_back() -> None:
    module = parse()
    write_entrypoints(module, ["k1", "f"])
    assert module.attributes[ENTRYPOINTS_ATTR] == ArrayAttr(
        [SymbolRefAttr("k1"), SymbolRefAttr("f")]
    )
    assert read_entrypoints(module) == ["k1", "f"]


def test_reading_without_a_set_says_what_to_run() -> None:
    with pytest.raises(DiagnosticException, match="run classify-entrypoints first"):
        read_entrypoints(parse())


def test_a_malformed_set_is_a_diagnostic() -> None:
    module = parse()
    module.attributes[ENTRYPOINTS_ATTR] = ArrayAttr([SymbolRefAttr("m", ["inner"])])
    with pytest.raises(DiagnosticException, match="array of @symbol references"):
        read_entrypoints(module)


def test_privatize_follows_the_computed_set() -> None:
    module = parse()
    write_entrypoints(module, compute_entrypoints(module, ["h"]))
    privatize(module)
    assert visibilities(module) == {
        "h": "public",
        "k1": "public",
        "k_private": "public",
        "k_decl": "private",
        "f": "private",
        "m": "private",
    }
    inner = next(
        op
        for op in module.walk()
        if op.get_attr_or_prop("sym_name") == StringAttr("inner")
    )
    assert visibility(inner) == "public", "privatize does not enter nested tables"


def test_privatize_reads_only_the_attribute() -> None:
    """A hand-written set wins over roles: nothing else decides visibility."""
    module = parse()
    write_entrypoints(module, ["f"])
    privatize(module)
    public = [name for name, vis in visibilities(module).items() if vis == "public"]
    assert public == ["f"]


def test_a_recorded_set_keeps_its_members() -> None:
    """Classifying again (the pipeline on its own output) drops no export; an
    entry whose symbol is gone is dropped."""
    module = parse()
    write_entrypoints(module, ["f", "gone"])
    assert compute_entrypoints(module) == ["k1", "k_private", "f"]
