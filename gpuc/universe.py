"""The `xdsl.universe` plugin: makes plain `xdsl-opt` know gpuc.

Everything here is a lazy factory (see `gpuc.registry`); importing this module
imports nothing of gpuc's dialect, passes or targets. Names xDSL already
provides are left to xDSL.
"""

from __future__ import annotations

from xdsl.universe import Universe

from gpuc.registry import DIALECTS, PASSES, TARGETS, available, lazy

_OWN_DIALECTS = {"gpuc"}

GPUC_UNIVERSE = Universe(
    all_dialects={n: lazy(p) for n, p in DIALECTS.items() if n in _OWN_DIALECTS},
    all_passes={n: lazy(p) for n, p in available(PASSES).items()},
    all_targets={n: lazy(p) for n, p in available(TARGETS).items()},
)
