"""How long a learner waits for a cell's first output, against the bare Pyodide floor (see startup/__init__.py).

Run:  .venv/bin/python benchmarks/first_output.py [--pairs N] [--only ab,d,cf] [--gzip] [--site DIR]
"""

import sys

from startup.cli import main

if __name__ == "__main__":
    sys.exit(main())
