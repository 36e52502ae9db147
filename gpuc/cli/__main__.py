"""`python -m gpuc.cli`: the `gpuc` command without its console script."""

import sys

from gpuc.cli.main import main

if __name__ == "__main__":  # not when a walk of the package imports it
    sys.exit(main())
