"""The `file:line:col` locations the fast reader (gpuc/reader/fast.py) gives
its ops, made all at once after the read, and the interned IntAttr and
StringAttr values it builds them from.

A location per op made as each op was read took a seventh of a read (33,000
locations for 1,000 bench kernels, ~1.4 us each: a Python call, the line's
search, the attribute's fields set one by one). Made together, from the
ops and their names' offsets, every step is a map over all of them that runs
in C: the line by bisection, the column, the interned IntAttrs, the objects
and their fields. The locations are those `location` makes one at a time
(tests/test_reader.py compares the modules, locations included, with xDSL's
parser's).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Sequence
from itertools import repeat
from operator import add, sub
from typing import TypeVar

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Operation

INTS: dict[int, IntAttr] = {}
"""IntAttr of each value met, made once (attributes are immutable)."""

_DataT = TypeVar("_DataT", IntAttr, StringAttr)


def data_attribute(cls: type[_DataT], value: object) -> _DataT:
    """`cls(value)` for IntAttr (of an int) and StringAttr (of a str), made
    as xDSL's constructor makes it but for `Attribute.__post_init__`, whose
    checks (`verify`, which these classes do not override, and an abc
    isinstance against Data) pass by construction. A read makes one per
    function name and per symbol reference, and one per line number the first
    time it is met: 446 -> 252 ns each (timeit)."""
    attribute = cls.__new__(cls)
    object.__setattr__(attribute, "data", value)
    return attribute


def int_attribute(value: int) -> IntAttr:
    """IntAttr(value), made once per value."""
    found = INTS.get(value)
    if found is None:
        found = INTS[value] = data_attribute(IntAttr, value)
    return found


_consume = deque[None](maxlen=0).extend
"""Runs a map (of setters, which return None) through, keeping nothing."""


def locate(
    ops: Sequence[Operation],
    offsets: Sequence[int],
    line_starts: Sequence[int],
    file: StringAttr,
    line_offset: int,
) -> None:
    """Give each op of `ops` the location of its offset in `offsets`:
    `file`, the line (from 1, plus `line_offset`) and the column (from 1).
    `line_starts` holds the offset of each line's start in order, the first
    0, and one past the text's end last."""
    count = len(ops)
    # The line (from 1) is how many line starts are at or before the offset.
    lines = list(map(bisect_right, repeat(line_starts, count), offsets))
    starts = map(line_starts.__getitem__, map(add, lines, repeat(-1)))
    columns = list(map(sub, map(add, offsets, repeat(1)), starts))
    if line_offset:
        lines = list(map(add, lines, repeat(line_offset)))
    for value in {*lines, *columns}.difference(INTS):
        INTS[value] = data_attribute(IntAttr, value)
    # Made as xDSL's constructor makes a location but for its verifier, which
    # checks the parameters' classes: these are those classes already. Field
    # by field, in the constructor's order: vars(location) would give each
    # location a dict object of its own, more memory and more for the cycle
    # collector to walk.
    locations = list(map(FileLineColLoc.__new__, repeat(FileLineColLoc, count)))
    setter = object.__setattr__
    _consume(map(setter, locations, repeat("filename", count), repeat(file)))
    _consume(map(setter, locations, repeat("line"), map(INTS.__getitem__, lines)))
    _consume(map(setter, locations, repeat("column"), map(INTS.__getitem__, columns)))
    _consume(map(setattr, ops, repeat("location"), locations))
