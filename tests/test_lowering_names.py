"""gpuc's name scope (gpuc.lowering.names) gives the names llvmlite's gives,
in the same order, on random sequences of wanted names that collide with
each other and with the names deduplication makes."""

from __future__ import annotations

import random

from llvmlite.ir import _utils

from gpuc.lowering.names import NameScope

WANTED = ("", "", "r", "r.1", "r.1.1", "x", "x.2", ".3", ".12", "y")


def registered(scope: _utils.NameScope, name: str, deduplicate: bool) -> str:
    try:
        return str(scope.register(name, deduplicate=deduplicate))
    except _utils.DuplicatedNameError:
        return "refused"


def test_names_are_llvmlites() -> None:
    rng = random.Random()
    for _ in range(100):
        theirs, ours = _utils.NameScope(), NameScope()
        for _ in range(200):
            name, deduplicate = rng.choice(WANTED), rng.random() < 0.9
            assert registered(ours, name, deduplicate) == registered(
                theirs, name, deduplicate
            )


def test_a_scope_taken_over_keeps_its_names_and_counts() -> None:
    theirs = _utils.NameScope()
    for name in ("", "", "r", "r"):
        theirs.register(name, deduplicate=True)
    ours = NameScope.taking_over(theirs)
    assert [ours.register(n, deduplicate=True) for n in ("", "r", ".1")] == [
        ".3",
        "r.2",
        ".1.1",
    ]
