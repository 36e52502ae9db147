"""gpuc's two caches and the folder they share (docs/cache.md): the compile
cache (`store.py`, the entries and their keys' parts; `compiling.py`, a
compile through it) and the start-up code cache (`startup.py`, the code
`dataclasses` compiles while the commands import xDSL), both in gpuc's own
folder of the cache directory (`directory.py`). Importing the package imports
none of them."""
