"""The target registry: the one place a target's name is bound to its class.

Built-in targets are listed here by `module:Class` and imported on first use;
other packages add theirs with an entry point in the `gpuc.targets` group
(`name = "package.module:Class"`), or from Python with `register_target`
(and take it back with `unregister_target`).
Everything that offers a choice of target (the CLI's `--target`, `--emit` and
target flags, xdsl-opt's and gpuc-opt's `-t`, `gpuc.compile`, the executors)
asks this registry, so a new target is one folder and one entry here
(docs/extending.md).

The configured target of a module is its `#gpuc.target<...>` attribute
(`configured_target`); a module without one is compiled for `DEFAULT_TARGET`.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any

from xdsl.utils.exceptions import DiagnosticException

from gpuc.plugin_code import TARGETS_GROUP

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gpuc.dialects.attrs import CompileSettings, TargetAttr
    from gpuc.targets.base import Target

DEFAULT_TARGET = "ptx"
"""The target of `gpuc compile`, `gpuc.compile()` and every pass when none is
given: NVIDIA PTX, the artefact most GPU frontends want."""
HOST_TARGET = "native"
"""The target of what runs where it is launched when none is given (`gpuc run`,
`gpuc.run_host`, a Python kernel's `k[grid, block](...)`): this machine's
CPU, the one target that runs everywhere."""

BUILTIN_TARGETS: dict[str, str] = {
    "ptx": "gpuc.targets.ptx.target:PTXTarget",
    "spirv": "gpuc.targets.spirv.target:SPIRVTarget",
    "native": "gpuc.targets.native.target:NativeTarget",
    "amdgpu": "gpuc.targets.amdgpu.target:AMDGPUTarget",
}
"""Target name -> "module:Target subclass", imported when first asked for."""

ENTRY_POINT_GROUP = TARGETS_GROUP

_registered: dict[str, type[Target] | str] = {}


RESERVED_OPTIONS = frozenset(
    {
        *("target", "target_options", "opt_level", "exports", "libraries"),
        *("fp_contract", "validate", "generators"),
        *("file", "emit", "library", "export", "output", "print_ir_after_all"),
        *("no_fp_contract", "help", "command"),
        *("verbose", "cache", "no_cache", "dump_dir", "dump_filter"),
        *("line_info", "gpu_module", "checked", "version", "jobs"),
    }
)
"""Names no target option may take: the compile options every target shares
(`gpuc.driver.CompileOptions`) and `gpuc compile`'s own flags."""


class UnknownTarget(DiagnosticException):
    """A target name no registry entry binds."""


class BrokenTarget(DiagnosticException):
    """A registry entry that does not load as a usable Target subclass."""


def register_target(cls: type[Target] | str, name: str | None = None) -> None:
    """Make a target class (or its `module:Class` path) known under `name`
    (default: the class's `name`) to every stage of this process."""
    if isinstance(cls, str):
        if name is None:
            raise ValueError("a target registered by path needs a name")
        _registered[name] = cls
    else:
        _registered[name or cls.name] = cls
    _forget_loaded()


def unregister_target(name: str) -> None:
    """Undo `register_target(..., name)` (a name it never bound is left alone)."""
    _registered.pop(name, None)
    _forget_loaded()


def _forget_loaded() -> None:
    """Drop the classes and configured targets looked up under the old names."""
    target_class.cache_clear()
    target_of_attr.cache_clear()
    parse_target_spec.cache_clear()


@cache
def _plugin_targets() -> dict[str, str]:
    """Targets installed by other distributions (the `gpuc.targets` group)."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def target_names() -> list[str]:
    """Every registered target name: built-ins first, then plugins."""
    names = [*BUILTIN_TARGETS, *_registered, *_plugin_targets()]
    return list(dict.fromkeys(names))


def _load(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(import_module(module), attribute)


@cache
def target_class(name: str) -> type[Target]:
    """The class of target `name`, or an UnknownTarget diagnostic listing all."""
    from gpuc.targets.base import Target

    entry: type[Target] | str | None = _registered.get(name)
    if entry is None:
        entry = BUILTIN_TARGETS.get(name) or _plugin_targets().get(name)
    if entry is None:
        raise UnknownTarget(
            f"unknown target '{name}'; expected one of: {', '.join(target_names())}"
        )
    try:
        cls = _load(entry) if isinstance(entry, str) else entry
    except Exception as e:  # a plugin's import error is its own, not gpuc's
        raise BrokenTarget(
            f"target '{name}' ({entry}) cannot be loaded: {type(e).__name__}: {e}"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Target)):
        raise BrokenTarget(
            f"target '{name}' is registered as {entry!r}, which is not a "
            "gpuc.targets.base.Target subclass"
        )
    clashes = sorted(RESERVED_OPTIONS & set(cls.option_names()))
    if clashes:
        raise BrokenTarget(
            f"target '{name}' ({cls.__qualname__}) has option(s) "
            f"{', '.join(clashes)}, which every target shares (they are compile "
            "options or gpuc compile flags); rename them"
        )
    return cls


def make_target(name: str, **options: Any) -> Target:
    """Target `name` configured with `options` (its dataclass fields)."""
    cls = target_class(name)
    unknown = sorted(set(options) - set(cls.option_names()))
    if unknown:
        from gpuc.targets.base import TargetError

        accepted = ", ".join(cls.option_names()) or "none"
        raise TargetError(
            f"unknown option(s) {', '.join(unknown)} for target '{name}'; "
            f"accepted: {accepted}"
        )
    return cls(**options)


@cache
def target_of_attr(attr: TargetAttr) -> Target:
    """The target a `#gpuc.target<...>` attribute configures."""
    return make_target(attr.target_name, **attr.option_values())


def configured_attr(module: ModuleOp) -> TargetAttr:
    """The module's `#gpuc.target`, else the default target's (with the
    default settings)."""
    from gpuc.diagnostics import OpError
    from gpuc.dialects.attrs import TARGET_ATTR, TargetAttr

    attr = module.attributes.get(TARGET_ATTR)
    if attr is None:
        return make_target(DEFAULT_TARGET).attr()
    if not isinstance(attr, TargetAttr):
        raise OpError(
            module,
            f"'{TARGET_ATTR}' must be a #gpuc.target<...> attribute, got {attr}; "
            f"write e.g. {TARGET_ATTR} = #gpuc.target<ptx, sm = 90>",
        )
    return attr


def configured_target(module: ModuleOp) -> Target:
    """The target the module's `#gpuc.target` configures, else the default
    target."""
    from gpuc.diagnostics import OpError
    from gpuc.dialects.attrs import TARGET_ATTR

    attr = configured_attr(module)
    try:
        return target_of_attr(attr)
    except DiagnosticException as e:
        raise OpError(module, f"'{TARGET_ATTR}' {attr}: {e}") from None


def configured_settings(module: ModuleOp) -> CompileSettings:
    """The compile settings the module's `#gpuc.target` carries (opt_level,
    fp_contract, line_info, checked): what the lowering reads."""
    return configured_attr(module).settings


@cache
def parse_target_spec(spec: str) -> Target:
    """The target a spec such as `ptx{sm=80 ptx_isa=78}` names, configured
    (once per spec: xDSL reads a spec's fields by their type hints, which cost
    a small kernel's compile a tenth)."""
    from xdsl.utils.arg_spec import parse_spec
    from xdsl.utils.exceptions import ArgSpecParseError

    from gpuc.targets.base import TargetError

    try:
        parsed = parse_spec(spec)
    except ArgSpecParseError as e:
        raise TargetError(f"bad target spec '{spec}': {e}") from None
    cls = target_class(parsed.name)
    try:
        return cls.from_spec(parsed)
    except ValueError as e:
        raise TargetError(f"bad target spec '{spec}': {e}") from None
