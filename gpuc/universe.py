"""The `xdsl.universe` plugin: makes plain `xdsl-opt` know gpuc.

`xdsl-opt` loads every installed plugin on every call, so a failure here would
break `xdsl-opt` for everyone on the machine. Hence: every entry is a lazy
factory (see `gpuc.registry`; the `-t` outputs come from the target registry,
`gpuc.outputs`), and names xDSL already provides are left to xDSL, since the
multiverse refuses duplicate names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.universe import Universe

from gpuc.registry import DIALECTS, PASSES, lazy


def gpuc_only(
    registry: dict[str, str], taken: dict[str, Any]
) -> dict[str, Callable[[], Any]]:
    """Lazy factories for the existing entries whose names xDSL does not provide."""
    return {n: lazy(p) for n, p in registry.items() if n not in taken}


def _universe() -> Universe:
    from xdsl.dialects import get_all_dialects
    from xdsl.targets import get_all_targets
    from xdsl.transforms import get_all_passes

    from gpuc.outputs import output_factories

    own_dialects = {n: p for n, p in DIALECTS.items() if p.startswith("gpuc.")}
    xdsl_targets = get_all_targets()
    return Universe(
        all_dialects=gpuc_only(own_dialects, get_all_dialects()),
        all_passes=gpuc_only(PASSES, get_all_passes()),
        all_targets={
            n: f for n, f in output_factories().items() if n not in xdsl_targets
        },
    )


GPUC_UNIVERSE = _universe()
