"""exercise_check in real Pyodide gives the verdicts the build's CPython proof gives.

The page loads the verified Pyodide files and numpy from pyodide_assets/ (no
network), writes the package ``course_kernel`` (but the worker's bridge) into its
file system as the worker does, and runs each exercise's solution and starter through
``exercise_check.run_exercise``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from site_project import EXERCISE_PAGE as PAGE  # the build-time tests' exercise

from course_kernel import cell_exec, exercise_check
from course_site.contract import BRIDGE, PYTHON_FILES
from course_site.exercises import parse_exercises
from course_site.fences import scan
from course_site.strings import read_catalogue

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "pyodide_assets"
LOAD_TIMEOUT_MS = 180_000  # cold Pyodide and numpy on a busy 2-core machine


LESSON = (
    PAGE
    + """
```pyodide exercise="Scale the encoding"
# --- setup ---
import numpy as np
pe = np.arange(6.0).reshape(2, 3)
# --- code ---
def scaled(x):
    return x * "2"
# --- check ---
expect_close(scaled(pe), 2 * pe, name="scaled(pe)")
# --- solution ---
def scaled(x):
    return 2 * x
```

```pyodide exercise="Shapes"
# --- setup ---
import numpy as np
# --- code ---
table = np.zeros((3, 2))
# --- check ---
assert table.ndim == 2
expect_close(table, np.ones((2, 3)), name="table")
# --- solution ---
table = np.ones((2, 3))
```
"""
)

PAGE_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pyodide</title>
<script src="pyodide.js"></script></head><body></body></html>"""

RUN = """async ([sources, cases, messages]) => {
  const py = await loadPyodide({ indexURL: "./", lockFileURL: "./pyodide-lock.json" });
  await py.loadPackage("numpy");
  for (const [name, text] of Object.entries(sources)) {
    const path = `/home/pyodide/.course/${name}`; // course_kernel/cell_exec.py, as the worker writes it
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, text);
  }
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/.course')");
  // The course's words, as the worker gets them from the page (here the English catalogue).
  py.pyimport("course_kernel.strings").use(py.toPy(JSON.parse(messages)));
  const verdict = py.runPython(`
from course_kernel import cell_exec, exercise_check
def verdict(setup, code, check):
    result = exercise_check.run_exercise(setup, code, check, run_cell=cell_exec.run_cell, emit=lambda *_: None)
    return [result.passed, result.message]
verdict`);
  return cases.map(([setup, code, check]) => verdict(setup, code, check).toJs());
}"""


def _cpython_verdict(setup: str, code: str, check: str) -> list:
    result = exercise_check.run_exercise(setup, code, check, run_cell=cell_exec.run_cell, emit=lambda *_: None)
    return [result.passed, result.message]


@pytest.fixture(scope="module")
def pyodide_url(serve, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pyodide")
    for path in (PYODIDE / "files").iterdir():
        (folder / path.name).symlink_to(path.resolve())
    shutil.copy(PYODIDE / "pyodide-lock.json", folder / "pyodide-lock.json")
    (folder / "index.html").write_text(PAGE_HTML)
    return serve(folder)


def test_pyodide_and_cpython_agree_on_every_solution_and_starter(open_page, pyodide_url):
    exercises = parse_exercises(scan(LESSON, "lessons/test.md"))
    cases = [(e.setup, code, e.check) for e in exercises for code in (e.solution, e.starter)]
    sources = {name: path.read_text() for name, path in PYTHON_FILES.items() if name != BRIDGE}

    page = open_page(pyodide_url)
    page.set_default_timeout(LOAD_TIMEOUT_MS)
    in_pyodide = page.evaluate(RUN, [sources, cases, json.dumps(read_catalogue("en"))])

    in_cpython = [_cpython_verdict(*case) for case in cases]
    assert in_pyodide == in_cpython, json.dumps([in_pyodide, in_cpython], indent=1)
    passed = [verdict[0] for verdict in in_pyodide]
    assert passed == [True, False] * len(exercises)  # every solution passes, every starter fails
    messages = [verdict[1] for verdict in in_pyodide[1::2]]
    assert messages[1].startswith("your code raised UFuncTypeError: ufunc 'multiply' did not contain a loop")
    assert messages[2] == "`table` has shape (3, 2), expected shape (2, 3)"
