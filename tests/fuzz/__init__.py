"""gpuc's differential fuzzer: random valid kernels (`generator`), a reference
interpreter with MLIR's semantics (`reference`), and the driver that compiles
each program for every target, runs it and compares (`driver`).

A program is reproducible from its seed alone:
`python bench/fuzz.py --seed S --count 1` regenerates and reruns it.
"""
