"""Stop early, with a plain message, when the Python is too old for the project."""

import sys

if sys.version_info < (3, 11):  # noqa: UP036 - this check exists for older Pythons
    found = ".".join(map(str, sys.version_info[:3]))
    sys.exit(
        f"This project needs Python 3.11 or newer; `{sys.executable}` is {found}.\n"
        "Install a newer Python and run make again with PYTHON=/path/to/python3.11 (or newer)."
    )
