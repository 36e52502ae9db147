"""symbol-dce against the reference: random modules of functions, calls,
visibilities, declarations, nested (named and unnamed) modules and references
held by unregistered ops; the symbols gpuc keeps must be exactly those
`mlir-opt-16 --symbol-dce` keeps. Every symbol name is unique in its module, so
the set of names left is the answer. One mlir-opt process checks a whole batch
(`--split-input-file`).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from dataclasses import dataclass, field

import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser

from gpuc.context import make_context
from gpuc.transforms.symbol_dce import symbol_dce
from gpuc.transforms.symbol_privatize import privatize_symbols
from gpuc.transforms.symbol_uses import UnknownSymbolTableError

MLIR_OPT = shutil.which("mlir-opt-16")
pytestmark = pytest.mark.skipif(
    MLIR_OPT is None, reason="mlir-opt-16 not installed (apt-get install mlir-16-tools)"
)
SPLIT = "// -----"


@dataclass
class Table:
    """A symbol table being generated: its funcs and child modules by name."""

    path: tuple[str, ...]
    funcs: list[str] = field(default_factory=list)
    modules: list[Table] = field(default_factory=list)


class ModuleGenerator:
    """Random module text; names are unique across the whole module."""

    def __init__(self, rng: random.Random, unknown_tables: bool):
        self.rng = rng
        self.unknown_tables = unknown_tables
        self.counter = 0
        self.all_paths: list[tuple[str, ...]] = []

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def plan(self, path: tuple[str, ...], depth: int) -> Table:
        table = Table(path)
        for _ in range(self.rng.randint(1, 5)):
            name = self.fresh("f")
            table.funcs.append(name)
            self.all_paths.append((*path, name))
        if depth < 2:
            for _ in range(self.rng.choice((0, 0, 1, 2))):
                named = self.rng.random() < 0.8
                name = self.fresh("m") if named else ""
                child = self.plan((*path, name) if named else path, depth + 1)
                table.modules.append(child)
                if named:
                    self.all_paths.append((*path, name))
        return table

    def ref(self, table: Table) -> str:
        """A reference as seen from `table`: often local, sometimes nested,
        sometimes to a symbol of another scope or to nothing."""
        roll = self.rng.random()
        if roll < 0.5 and table.funcs:
            return f"@{self.rng.choice(table.funcs)}"
        if roll < 0.8:
            target = self.rng.choice(self.all_paths)
            base = len(table.path)
            if target[:base] == table.path and len(target) > base:
                return "::".join(f"@{n}" for n in target[base:])
            return f"@{target[-1]}"
        return f"@{self.fresh('missing')}::@{self.fresh('x')}"

    def visibility(self) -> str:
        return self.rng.choice(("", "private ", "private ", "nested "))

    def body(self, table: Table, indent: str) -> list[str]:
        lines: list[str] = []
        for _ in range(self.rng.randint(0, 3)):
            roll = self.rng.random()
            if roll < 0.4 and table.funcs:
                lines.append(
                    f"{indent}func.call @{self.rng.choice(table.funcs)}() : () -> ()"
                )
            elif roll < 0.75:
                refs = ", ".join(self.ref(table) for _ in range(self.rng.randint(1, 2)))
                lines.append(f'{indent}"u.use"() {{refs = [{refs}]}} : () -> ()')
            elif roll < 0.9:
                lines.append(
                    f'{indent}"u.two_regions"() ({{\n{indent}  "u.use"() '
                    f"{{r = {{k = {self.ref(table)}}}}} : () -> ()\n{indent}}}, {{\n"
                    f"{indent}}}) : () -> ()"
                )
            elif self.unknown_tables:
                lines.append(f'{indent}"u.one_region"() ({{\n{indent}}}) : () -> ()')
        return lines

    def emit(self, table: Table, indent: str) -> list[str]:
        lines: list[str] = []
        for name in table.funcs:
            if self.rng.random() < 0.2:
                lines.append(f"{indent}func.func private @{name}()")
                continue
            lines.append(f"{indent}func.func {self.visibility()}@{name}() {{")
            lines += self.body(table, indent + "  ")
            lines += [f"{indent}  func.return", f"{indent}}}"]
        for child in table.modules:
            if child.path == table.path:
                lines.append(f"{indent}builtin.module {{")
            else:
                vis = self.rng.choice(("", "private", "private", "nested"))
                attrs = f' attributes {{sym_visibility = "{vis}"}}' if vis else ""
                lines.append(f"{indent}builtin.module @{child.path[-1]}{attrs} {{")
            lines += self.emit(child, indent + "  ")
            lines.append(f"{indent}}}")
        if self.rng.random() < 0.5:
            refs = ", ".join(self.ref(table) for _ in range(self.rng.randint(1, 3)))
            lines.append(f'{indent}"u.user"() {{refs = [{refs}]}} : () -> ()')
        return lines

    def module(self) -> str:
        top = self.plan((), 0)
        self.rng.shuffle(top.funcs)
        return "\n".join(["builtin.module {", *self.emit(top, "  "), "}"])


def kept_symbols(module: Operation) -> set[str]:
    return {
        name.data
        for op in module.walk()
        if op is not module
        and op.name in ("func.func", "builtin.module")
        and isinstance(name := op.get_attr_or_prop("sym_name"), StringAttr)
    }


def parse(text: str) -> ModuleOp:
    return Parser(make_context(allow_unregistered=True), text).parse_module()


def gpuc_kept(text: str, privatize: bool) -> set[str] | None:
    module = parse(text)
    try:
        if privatize:
            privatize_symbols(module)
        symbol_dce(module)
    except UnknownSymbolTableError:
        return None
    module.verify()
    return kept_symbols(module)


def mlir_kept(texts: list[str], privatize: bool) -> list[set[str] | None]:
    """Run mlir-opt-16 once over all `texts`; None where it reports an error."""
    assert MLIR_OPT is not None
    passes = ["--symbol-privatize"] if privatize else []
    run = subprocess.run(
        [
            MLIR_OPT,
            "--allow-unregistered-dialect",
            "--split-input-file",
            "--verify-diagnostics",
            *passes,
            "--symbol-dce",
            "-",
        ],
        input=f"\n{SPLIT}\n".join(texts),
        capture_output=True,
        text=True,
    )
    chunks = run.stdout.split(SPLIT)
    assert len(chunks) == len(texts), run.stderr[-2000:]
    results: list[set[str] | None] = []
    for chunk in chunks:
        if "module" not in chunk:
            results.append(None)  # the chunk failed: its diagnostic went to stderr
        else:
            results.append(kept_symbols(parse(chunk)))
    return results


def corpus(seed: int, count: int, unknown_tables: bool) -> list[str]:
    rng = random.Random(seed)
    return [ModuleGenerator(rng, unknown_tables).module() for _ in range(count)]


@pytest.mark.parametrize("privatize", [False, True], ids=["dce", "privatize+dce"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_symbols_as_mlir_opt(seed: int, privatize: bool) -> None:
    texts = corpus(seed, 60, unknown_tables=False)
    expected = mlir_kept(texts, privatize)
    removed = 0
    for text, want in zip(texts, expected, strict=True):
        assert want is not None, f"mlir-opt-16 rejected a generated module:\n{text}"
        got = gpuc_kept(text, privatize)
        assert got == want, f"kept {got} but mlir-opt-16 kept {want} in:\n{text}"
        removed += len(kept_symbols(parse(text))) - len(want)
    assert removed > 0, "the corpus never removes anything: the generator is broken"


def test_same_refusals_as_mlir_opt() -> None:
    """An unregistered op with one region makes both refuse, and only then."""
    texts = corpus(7, 60, unknown_tables=True)
    expected = mlir_kept(texts, privatize=False)
    refused = 0
    for text, want in zip(texts, expected, strict=True):
        got = gpuc_kept(text, privatize=False)
        assert got == want, f"gpuc {got} vs mlir-opt-16 {want} on:\n{text}"
        refused += want is None
    assert 0 < refused < len(texts), "the corpus must mix refusals and results"
