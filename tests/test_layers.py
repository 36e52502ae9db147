"""gpuc's layers, as docs/architecture.md ("Layers") draws them, read from
the source (`ast`, tests/import_graph.py): every import goes to the module's
own layer or one below, so no circle crosses layers; the compile stages know
nothing of the cache that runs them; the library never imports the command
line; and every module of the gpuc/ root has its layer said here, so that a
new one is placed on purpose.
"""

from __future__ import annotations

from pathlib import Path

from import_graph import cycles, import_graph

ROOT = Path(__file__).resolve().parent.parent

LAYERS = ("base", "stages", "compile API", "commands")
"""Lowest first: a module imports from its own layer and those before it."""

BASE_PACKAGES = (
    "gpuc.dialects",
    "gpuc.reader",
    "gpuc.transforms",
    "gpuc.lowering",
    "gpuc.targets",
    "gpuc.generators",
    "gpuc.runtime",
)
"""The compiler itself and the executors, which the stages drive."""

MODULES = {
    # the root: what transforms/, lowering/ and targets/ import
    "gpuc": "compile API",  # its public names, imported lazily
    "gpuc.registry": "base",
    "gpuc.context": "base",
    "gpuc.diagnostics": "base",
    "gpuc.verifier": "base",
    "gpuc.hexfloat": "base",
    "gpuc.asserts": "base",
    "gpuc.kernel_params": "base",
    "gpuc.libraries": "base",
    "gpuc.plugin_code": "base",
    "gpuc.tools": "base",
    # services the base uses: the caches' store and folder, the recorder
    # the passes write explanations to, Python kernels' source positions
    "gpuc.cache": "base",
    "gpuc.cache.directory": "base",
    "gpuc.cache.store": "base",
    "gpuc.cache.startup": "base",
    "gpuc.explain.record": "base",
    "gpuc.python.source": "base",
    # the stages
    "gpuc.driver": "stages",
    # the compile API: compile_module through the cache, and what is built
    # on it
    "gpuc.compiler": "compile API",
    "gpuc.cache.compiling": "compile API",
    "gpuc.dumps": "compile API",
    "gpuc.api": "compile API",
    "gpuc.variants": "compile API",
    "gpuc.autodiff": "compile API",
    "gpuc.tuning": "compile API",
    "gpuc.outputs": "compile API",
    "gpuc.universe": "compile API",
}
"""Modules by name; packages below by prefix."""

PACKAGES = {
    **dict.fromkeys(BASE_PACKAGES, "base"),
    "gpuc.explain": "compile API",
    "gpuc.python": "compile API",
    "gpuc.host": "compile API",
    "gpuc.cli": "commands",
}


def layer(module: str) -> str:
    if module in MODULES:
        return MODULES[module]
    for package, where in PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return where
    raise AssertionError(f"{module} has no layer: add it to tests/test_layers.py")


GRAPH = import_graph(ROOT)


def test_every_module_has_a_layer() -> None:
    for module in GRAPH:
        assert layer(module) in LAYERS


def test_imports_go_down_the_layers() -> None:
    upward = [
        f"{m} ({layer(m)}) imports {d} ({layer(d)})"
        for m, deps in sorted(GRAPH.items())
        for d in sorted(deps)
        if LAYERS.index(layer(d)) > LAYERS.index(layer(m))
    ]
    assert upward == []


def test_no_circle_crosses_a_layer() -> None:
    for circle in cycles(GRAPH):
        assert len({layer(m) for m in circle}) == 1, circle


def test_the_library_never_imports_the_command_line() -> None:
    reaching = {
        m
        for m, deps in GRAPH.items()
        if not m.startswith("gpuc.cli")
        and any(d == "gpuc.cli" or d.startswith("gpuc.cli.") for d in deps)
    }
    assert reaching == set()


def test_the_stages_know_nothing_of_the_cache_or_the_api() -> None:
    """The driver runs stages; the cache runs the driver (`driver.run`),
    and `compile_module` calls the cache: no circle among the three."""
    assert not {d for d in GRAPH["gpuc.driver"] if d.startswith("gpuc.cache")}
    assert "gpuc.compiler" not in GRAPH["gpuc.cache.compiling"]
    for circle in cycles(GRAPH):
        assert not {"gpuc.driver", "gpuc.compiler", "gpuc.cache.compiling"} & set(
            circle
        ), circle


def test_targets_never_import_the_driver() -> None:
    """A target is typed against what it reads (`Emitted`,
    gpuc/targets/common.py), not against the driver's data."""
    for m, deps in GRAPH.items():
        if m.startswith("gpuc.targets"):
            assert "gpuc.driver" not in deps, m


def test_the_root_holds_base_and_compile_api_only() -> None:
    """The gpuc/ root is sorted: its modules are the base and the compile
    API (and the stages); the caches and the commands have packages."""
    root = {p.stem for p in (ROOT / "gpuc").glob("*.py")} - {"__init__"}
    assert {f"gpuc.{m}" for m in root} <= set(MODULES)
    assert not any("cache" in m or m in ("cli", "client", "server") for m in root)
