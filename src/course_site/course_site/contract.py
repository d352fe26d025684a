"""What the page, the Python worker and the build agree on, read from ``assets/js/contract.json``.

The one place for the markup's class and data-attribute names (``dom.py``), the run's default
limits (``limits.py``), the worker's Python files and the messages between page and worker
(checked against the scripts by ``tests/js/contract.test.mjs``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

CONTRACT_FILE = Path(__file__).parent / "assets" / "js" / "contract.json"
CONTRACT: dict = json.loads(CONTRACT_FILE.read_text())

PACKAGE: str = CONTRACT["python"]["package"]
"""The package of the Python that runs the cells (``course_kernel``), imported by that name everywhere."""
PACKAGE_DIR: Path = Path(importlib.util.find_spec(PACKAGE).origin).parent
ON_FIRST_USE: tuple[str, ...] = tuple(CONTRACT["python"]["onFirstUse"])
PYTHON_FILES: dict[str, Path] = {
    f"{PACKAGE}/{path.name}": path for path in sorted(PACKAGE_DIR.glob("*.py")) if path.name not in ON_FIRST_USE
}
"""The runner's Python files, every module of the package's folder but those fetched on first use, by their
path in the runner's ``py/`` folder and on Pyodide's import path (``course_kernel/cell_exec.py``), with their
source: the worker and the build's Node script write each there."""
BRIDGE: str = f"{PACKAGE}/{CONTRACT['python']['bridge']}"
"""The one of them that the runner calls (``assets/js/worker/run.js``), in the worker and in the build."""
BRIDGE_MODULE: str = BRIDGE.removesuffix(".py").replace("/", ".")
"""The bridge's module name (``course_kernel.bridge``): what both hosts import."""
PUBLISHED_PYTHON_FILES: dict[str, Path] = {
    **PYTHON_FILES,
    **{f"{PACKAGE}/{name}": PACKAGE_DIR / name for name in ON_FIRST_USE},
}
"""Those and the ones the worker fetches on first use (``completion.py``, with the editor's first completions)."""
