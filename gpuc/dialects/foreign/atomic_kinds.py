"""`memref.atomic_rmw` kinds by keyword, and the numbers MLIR gave them.

MLIR 16 to 19 number `AtomicRMWKind` in declaration order (19 adds maxnumf 13
and minnumf 14), MLIR 22 alphabetically, so a number printed in the generic
form means different kinds in different versions (`maxu` is 5, then 7). gpuc's
number is MLIR 16's. No xDSL import here: text.py reads this for every input.
"""

from __future__ import annotations

KIND_NUMBER_BY_KEYWORD = {
    "addf": 0,
    "addi": 1,
    "assign": 2,
    "maxf": 3,  # MLIR 16
    "maximumf": 3,  # MLIR 17 and later
    "maxs": 4,
    "maxu": 5,
    "minf": 6,  # MLIR 16
    "minimumf": 6,  # MLIR 17 and later
    "mins": 7,
    "minu": 8,
    "mulf": 9,
    "muli": 10,
    "ori": 11,
    "andi": 12,
}
"""Kind keyword -> gpuc's (MLIR 16's) number."""
KEYWORD_BY_KIND_NUMBER = {
    number: word
    for word, number in KIND_NUMBER_BY_KEYWORD.items()
    if word not in ("maxf", "minf")
}
"""gpuc's number -> the keyword MLIR 17 and later spell it with."""
UNSUPPORTED_KINDS = {
    "maxnumf": "an IEEE maxNum atomic of newer MLIR",
    "minnumf": "an IEEE minNum atomic of newer MLIR",
    "xori": "an atomic xor of MLIR 22",
}
"""Kinds newer MLIR has and gpuc's import does not take."""

ALPHABETICAL_KINDS = (
    "addf addi andi assign maximumf maxnumf maxs maxu minimumf minnumf mins minu "
    "mulf muli ori xori"
).split()
"""MLIR 22's numbering: the kind of each number, in order."""
NUMBERING_19 = {**KEYWORD_BY_KIND_NUMBER, 13: "maxnumf", 14: "minnumf"}
"""MLIR 18-19's numbering."""
AMBIGUOUS_KINDS = {
    number: (NUMBERING_19.get(number, "nothing"), word)
    for number, word in enumerate(ALPHABETICAL_KINDS)
    if NUMBERING_19.get(number) != word
}
"""Numbers MLIR 18-19 and MLIR 22 read differently: number -> (19's, 22's)."""
