"""What the kernel test files share: each source compiled once per target per
test process, and random generators keyed by the test's parameters."""

from __future__ import annotations

import os
from functools import cache

import numpy as np

import gpuc


@cache
def compiled(source: str | os.PathLike[str], target: str) -> gpuc.Module:
    """`source` compiled for `target`, once per process."""
    return gpuc.compile(source, target=target)


def seeded(seed: int, *key: object) -> np.random.Generator:
    """A generator for `seed` and the test's `key` (its parameters)."""
    return np.random.default_rng([seed, *(hash(str(k)) % 2**32 for k in key)])
