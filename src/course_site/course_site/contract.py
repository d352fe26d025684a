"""What the page, the Python worker and the build agree on, read from ``assets/js/contract.json``.

The one place for the markup's class and data-attribute names (``dom.py``), the run's default
limits (``limits.py``), the worker's Python files and the messages between page and worker
(checked against the scripts by ``tests/js/contract.test.mjs``).
"""

from __future__ import annotations

import json
from pathlib import Path

CONTRACT_FILE = Path(__file__).parent / "assets" / "js" / "contract.json"
CONTRACT: dict = json.loads(CONTRACT_FILE.read_text())

PYTHON_FILES: list[str] = CONTRACT["python"]["files"]
"""The worker's Python files, in ``assets/py/``: it fetches each and writes it into Pyodide's file system."""
BRIDGE: str = CONTRACT["python"]["bridge"]
"""The one of them that only the browser's worker runs (the build's runner under Node plays its part)."""
