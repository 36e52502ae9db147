"""gpuc's commands: `gpuc` (`main.py`; `gpuc cache` in `cache.py`, `gpuc
explain` in `explain.py`, `gpuc run` in `run.py`, several inputs at once in
`many.py`), `gpuc-opt` (`opt.py`), what both share (`command.py`), and their
console scripts (`client.py`, which hands a command to the compile server,
`server.py`, where enabled). Nothing outside this package imports it: the
library never needs the command line (tests/test_layers.py). Importing the
package imports none of them."""
