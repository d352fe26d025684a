"""Each lesson's notebook: linked from its page, valid nbformat, and it runs top to bottom in CPython.

The notebook's code cells run in order in one namespace with the repository's posenc; every
exercise's check cell prints a verdict (the starter's "not yet"), and the exercise's solution
(from its task cell) then passes the same check.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

from course_site.notebook import LINK_TEXT

matplotlib.use("agg")
PASSED = "All checks passed."
LINK = re.compile(r'<a href="(?P<href>[^"]+\.ipynb)" download>(?P<text>[^<]*)</a>')
SOLUTION = re.compile(r"<summary>Solution</summary>\n\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def lesson_pages(site: Path) -> list[Path]:
    return sorted((site / "lessons").glob("*/index.html"))


def notebook_of(page: Path) -> nbformat.NotebookNode:
    found = LINK.search(page.read_text())
    assert found and found["text"] == LINK_TEXT, f"{page}: no link {LINK_TEXT!r}"
    notebook = nbformat.read(page.parent / found["href"], as_version=4)
    nbformat.validate(notebook)
    return notebook


def run_cell(source: str, namespace: dict, name: str) -> str:
    printed = io.StringIO()
    # The lessons set numpy's print options: they are put back after each cell, for the tests that follow.
    with contextlib.redirect_stdout(printed), np.printoptions():
        exec(compile(source, name, "exec"), namespace)
    return printed.getvalue()


def test_every_lesson_page_links_a_valid_notebook_with_tex_and_build_outputs(built_site: Path):
    pages = lesson_pages(built_site)
    assert len(pages) >= 2
    for page in pages:
        notebook = notebook_of(page)
        prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert "$" in prose and "<math" not in prose  # math as TeX, from the Markdown source
        outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
        assert any(o.output_type == "stream" for o in outputs), page
    figures = [
        o
        for page in pages
        for c in notebook_of(page).cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert figures, "no build-time figure reached a notebook"


@pytest.mark.parametrize("index", [0, 1])
def test_a_notebook_runs_in_order_in_cpython_and_its_checks_give_verdicts(built_site: Path, index: int):
    notebook = notebook_of(lesson_pages(built_site)[index])
    namespace: dict = {"__name__": "__main__"}
    tasks = iter(SOLUTION.search(c.source) for c in notebook.cells if c.cell_type == "markdown")
    solutions = [m["code"] for m in tasks if m]
    checks = []
    for k, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        printed = run_cell(cell.source, namespace, f"<notebook cell {k}>")
        if cell.source.startswith("# Check exercise"):
            checks.append(cell.source)
            assert printed.strip() and PASSED not in printed, f"cell {k}: the starter's verdict: {printed!r}"
    assert len(checks) == len(solutions) >= 3
    for solution, check in zip(solutions, checks, strict=True):
        run_cell(solution, namespace, "<solution>")
        assert run_cell(check, namespace, "<check>").strip() == PASSED


def test_an_exercises_task_cell_holds_its_task_section(built_site: Path):
    """The task the page shows above the editor is the notebook's task too, as Markdown."""
    notebook = notebook_of(lesson_pages(built_site)[0])
    tasks = [c.source for c in notebook.cells if c.cell_type == "markdown" and c.source.startswith("**Exercise 1:")]
    assert len(tasks) == 1
    assert "Write `repeat_after(i, d_model)`" in tasks[0] and "$k \\ge 1$" in tasks[0]
