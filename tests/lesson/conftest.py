"""Reading and running a lesson with the site's own parser and the page's cell runner, shared by the lesson tests.

A cell runs as the page runs it (`course_kernel.cell_exec.run_cells`, the worker's `run`): its inputs'
bindings as ``<inputs>``, its setup as ``<setup>``, its code as ``<cell N>``, N its number on the page.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import io
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from course_kernel import cell_exec
from course_site.exercises import is_exercise
from course_site.fences import CELL, QUIZ, Block, Cell, scan, to_cell
from course_site.inputs import bindings, default_key

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
INPUTS_FILE, SETUP_FILE = "<inputs>", "<setup>"
"""The filenames of a cell's hidden sources, as the page and the build name them in a traceback."""


class Lesson(NamedTuple):
    """A lesson's text, fenced blocks, cells (validated as the build does) and quiz bodies."""

    text: str
    blocks: list[Block]
    cells: list[Cell]
    quizzes: list[str]


class LessonRun(NamedTuple):
    """The shared namespace after all cells, each cell's printed output and figure count."""

    namespace: dict
    printed: list[str]
    figures: list[int]


class CellOutput(NamedTuple):
    """One cell's run: what it printed, the reprs of its results and how many figures it showed."""

    printed: str
    results: list[str]
    figures: int


def read_lesson(name: str) -> Lesson:
    text = (LESSONS / name).read_text(encoding="utf-8")
    blocks = scan(text, f"lessons/{name}")
    cells = [to_cell(block) for block in blocks if block.lang == CELL and not is_exercise(block)]
    quizzes = [block.body for block in blocks if block.lang == QUIZ]
    return Lesson(text, blocks, cells, quizzes)


@functools.cache
def _cell_lines(path: str) -> tuple[int | None, ...]:
    """The opening lines of the page's cells and exercises, in page order (they share the cell numbering)."""
    return tuple(block.line for block in scan((ROOT / path).read_text(encoding="utf-8"), path) if block.lang == CELL)


def page_number(cell: Cell) -> int:
    """The cell's number on its page (from 1): the N of its code's ``<cell N>``."""
    return _cell_lines(cell.block.path).index(cell.block.line) + 1


def cell_sources(cell: Cell, key: tuple[int, ...] | None = None) -> list[tuple[str, str]]:
    """The ``(source, filename)`` pairs the page runs for ``cell``: the bindings of its inputs (to combination
    ``key``, default: their defaults), its setup, its code."""
    inputs = bindings(cell.inputs, default_key(cell.inputs) if key is None else key) if cell.inputs else ""
    sources = [(inputs, INPUTS_FILE)] if inputs else []
    sources += [(cell.setup, SETUP_FILE)] if cell.setup.strip() else []
    return [*sources, (cell.code, f"<cell {page_number(cell)}>")]


def run_cell(cell: Cell, namespace: dict, key: tuple[int, ...] | None = None) -> CellOutput:
    """Run ``cell`` (its inputs bound to ``key``) in ``namespace`` as the page does; the test fails with the
    traceback the page would show if it raises."""
    import matplotlib

    matplotlib.use("Agg")
    emitted: dict[str, list] = collections.defaultdict(list)

    def emit(kind: str, payload: object) -> None:
        emitted[kind].append(payload)

    session = cell_exec.Session(alt=cell.options.alt or "")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        outcome = cell_exec.run_cells(cell_sources(cell, key), namespace, emit=emit, session=session)
        ok = outcome if isinstance(outcome, bool) else asyncio.run(outcome)
    if not ok:
        error = "".join(emitted["error"])
        pytest.fail(f"<cell {page_number(cell)}> of {cell.block.path} failed:\n{error}", pytrace=False)
    return CellOutput(out.getvalue(), emitted["result"], len(emitted["figure"]))


def run_cells(cells: list[Cell]) -> LessonRun:
    """Run the cells in page order in one namespace, as the site does.

    Print options and figures are restored afterwards, so other tests see none of it.
    """
    namespace: dict = {"__name__": "__main__"}
    with np.printoptions():
        try:
            outputs = [run_cell(cell, namespace) for cell in cells]
        finally:
            _close_figures()
    return LessonRun(namespace, [output.printed for output in outputs], [output.figures for output in outputs])


def _close_figures() -> None:
    """Close every matplotlib figure left open, so that other tests see none."""
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="session")
def lesson_reader() -> Callable[[str], Lesson]:
    """``read_lesson``: a lesson file name under lessons/ -> its text, blocks, cells and quizzes."""
    return read_lesson


@pytest.fixture(scope="session")
def lesson_runner() -> Callable[[list[Cell]], LessonRun]:
    """``run_cells``: run a lesson's cells in one namespace, as the build does."""
    return run_cells


@pytest.fixture(scope="session")
def cell_runner() -> Callable[..., CellOutput]:
    """``run(cell, namespace, key=None)``: one cell run as the page runs it, its inputs bound to ``key``
    (default: their defaults); what it printed, its results and its figure count."""
    return run_cell
