"""The `xdsl.universe` plugin: makes plain `xdsl-opt` know gpuc.

`xdsl-opt` loads every installed plugin on every call, so a failure here would
break `xdsl-opt` for everyone on the machine. Hence: every entry is a lazy
factory (see `gpuc.registry`); whether a pass or target module exists is
checked by looking for its file, never by importing it (nor its package); and
names xDSL already provides are left to xDSL, since the multiverse refuses
duplicate names.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

from xdsl.universe import Universe

from gpuc.registry import DIALECTS, PASSES, TARGETS, lazy


def module_exists(module: str) -> bool:
    """Whether `module` can be found, importing at most its top-level package."""
    package, _, leaf = module.rpartition(".")
    try:
        spec = find_spec(package) if package else None
        if spec is None or spec.submodule_search_locations is None:
            return find_spec(module) is not None if not package else False
        return any(
            os.path.exists(os.path.join(folder, leaf + ".py"))
            or os.path.exists(os.path.join(folder, leaf, "__init__.py"))
            for folder in spec.submodule_search_locations
        )
    except Exception:  # a broken parent package: the name is simply not offered
        return False


def existing(registry: dict[str, str]) -> dict[str, str]:
    """The entries of a `name -> "module:attribute"` registry whose module exists."""
    return {n: p for n, p in registry.items() if module_exists(p.split(":")[0])}


def gpuc_only(
    registry: dict[str, str], taken: dict[str, Any]
) -> dict[str, Callable[[], Any]]:
    """Lazy factories for the existing entries whose names xDSL does not provide."""
    return {n: lazy(p) for n, p in existing(registry).items() if n not in taken}


def _universe() -> Universe:
    from xdsl.dialects import get_all_dialects
    from xdsl.targets import get_all_targets
    from xdsl.transforms import get_all_passes

    own_dialects = {n: p for n, p in DIALECTS.items() if p.startswith("gpuc.")}
    return Universe(
        all_dialects=gpuc_only(own_dialects, get_all_dialects()),
        all_passes=gpuc_only(PASSES, get_all_passes()),
        all_targets=gpuc_only(TARGETS, get_all_targets()),
    )


GPUC_UNIVERSE = _universe()
