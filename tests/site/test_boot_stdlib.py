"""The modules outside the boot stdlib at build time: the build's Python (Pyodide under Node) boots
on the boot stdlib as the browser's worker does, and imports any other module of the official
stdlib zip on first use (stdlib_finder.py), so a cell's output is the same as with the whole stdlib."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_project import build, lesson_html, make_project

# Outside the boot set (checked by test_build.py's test of the boot stdlib), and a submodule of a
# package that is in it (json.tool) and of one that is not (unittest.mock).
IMPORTS = """\
```pyodide
import dataclasses, difflib, fractions, json, json.tool, statistics, unittest.mock
print(difflib.SequenceMatcher(None, "rotary", "rotate").ratio())
print(fractions.Fraction(3, 4) + fractions.Fraction(1, 4), statistics.median([3, 1, 2]))
print(unittest.mock.Mock(return_value=7)(), json.tool.__name__, dataclasses.is_dataclass(fractions))
print(difflib.__file__, unittest.mock.__file__, json.__file__)
```
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lesson = f"# Lesson\n\n{IMPORTS}"
    made = make_project(tmp_path_factory.mktemp("rest"), lesson, precompile_stdlib=True, preload=["numpy"])
    done = build(made)
    assert done.returncode == 0, done.stderr
    return made


def test_a_cell_imports_modules_outside_the_boot_stdlib_at_build_time(project: Path):
    html = lesson_html(project)
    assert "0.6666666666666666\n1 2\n7 json.tool False\n" in html
    # difflib and unittest.mock from the official zip (stdlib_finder.OFFICIAL_PATH), json from the boot stdlib
    official, boot = "/lib/python_stdlib.zip", "/lib/python312.zip"
    assert f"{official}/difflib.py {official}/unittest/mock.py {boot}/json/__init__.pyc" in html
