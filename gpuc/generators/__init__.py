"""Generators: job sources that synthesize a function on request.

A generator is asked for a job when the job names it
(`#gpuc.job<helper, generator = "name" {params}>`), or, for a job that names
none, when neither the module nor a library defines the source. It returns a
`gpuc.func` of the requested signature, or None to decline. Its body may hold
deferred ops (that is how a wrapper calls the function it wraps); the resolver
materializes those like any other. The resolver names the function and sets
its role and visibility; the generator decides the body and, when the job
gives none, the inline hint.

gpuc ships `autodiff` (docs/autodiff.md) and `mock_autodiff`. Third parties
register theirs under the Python
entry point group `gpuc.generators` (name = "module:Class" or an instance):

    [project.entry-points."gpuc.generators"]
    my_tool = "my_package.gen:MyGenerator"

A shipped generator's name cannot be taken by a plugin. Plugins are looked up
(`importlib.metadata`, about 20 ms to import) only when a job names a
generator that is neither given nor shipped, or when the names are listed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import FunctionType, IntegerAttr, IntegerType, UnitAttr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException

from gpuc.dialects.attrs import JobAttr
from gpuc.dialects.functions import FuncOp
from gpuc.plugin_code import GENERATORS_GROUP
from gpuc.registry import lazy

ENTRY_POINT_GROUP = GENERATORS_GROUP

SHIPPED: dict[str, str] = {
    "autodiff": "gpuc.generators.autodiff:Autodiff",
    "mock_autodiff": "gpuc.generators.mock_autodiff:MockAutodiff",
}


@dataclass(frozen=True)
class GeneratorRequest:
    """What a generator is asked to make: a function for `job` on `source`."""

    source: str
    """The job's source symbol."""
    job: JobAttr
    signature: FunctionType
    """The type the deferred op expects; the function must have exactly it."""
    source_func: FuncOp | None
    """The source's definition when the module or a library has one (read only)."""

    @property
    def params(self) -> Mapping[str, Attribute]:
        params: Mapping[str, Attribute] = self.job.params.data
        return params


class Generator(ABC):
    """A named plugin that synthesizes functions for jobs."""

    name: ClassVar[str]

    @abstractmethod
    def generate(self, request: GeneratorRequest) -> FuncOp | None:
        """A function for `request`, or None when this generator cannot make it.
        Raise an exception (any) to report that the request itself is wrong."""


class GeneratorError(DiagnosticException):
    """A generator could not be found or loaded."""


def flag_value(attr: Attribute) -> bool | None:
    """The value of a flag parameter (`unit`, `true`, `false`), None if not one."""
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
        return attr.value.data != 0
    return None


def _instantiate(name: str, obj: object) -> Generator:
    generator = obj() if isinstance(obj, type) else obj
    if not isinstance(generator, Generator):
        raise GeneratorError(
            f"generator plugin '{name}' is a {type(generator).__name__}, not a "
            "gpuc.generators.Generator"
        )
    return generator


class Generators:
    """Generators by name: given ones, shipped ones, then entry-point plugins.

    Each is loaded on first use, so a broken plugin only matters to the jobs
    that need it.
    """

    def __init__(self, given: Mapping[str, Generator] | None = None):
        self._loaders: dict[str, Callable[[], object]] = {
            name: lazy(path) for name, path in SHIPPED.items()
        }
        self._plugins_found = False
        self._loaded: dict[str, Generator] = dict(given or {})

    def _find_plugins(self) -> None:
        """Add the entry-point plugins whose names are not shipped ones."""
        if self._plugins_found:
            return
        from importlib.metadata import entry_points

        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            self._loaders.setdefault(ep.name, ep.load)
        self._plugins_found = True

    def names(self) -> list[str]:
        self._find_plugins()
        return sorted(set(self._loaders) | set(self._loaded))

    def get(self, name: str) -> Generator:
        if name in self._loaded:
            return self._loaded[name]
        if name not in self._loaders:
            self._find_plugins()
        loader = self._loaders.get(name)
        if loader is None:
            known = ", ".join(self.names()) or "none"
            raise GeneratorError(
                f"unknown generator '{name}'; known generators: {known} (third "
                f"parties register theirs under the '{ENTRY_POINT_GROUP}' entry "
                "point group)"
            )
        try:
            generator = _instantiate(name, loader())
        except GeneratorError:
            raise
        except Exception as e:
            raise GeneratorError(
                f"generator plugin '{name}' failed to load: {type(e).__name__}: {e}"
            ) from e
        self._loaded[name] = generator
        return generator

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
