"""Reading and running a lesson with the site's own parser, shared by the lesson tests."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from course_site.exercises import is_exercise
from course_site.fences import CELL, QUIZ, Block, Cell, scan, to_cell
from course_site.inputs import bindings, default_key

LESSONS = Path(__file__).resolve().parents[2] / "lessons"


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


def read_lesson(name: str) -> Lesson:
    text = (LESSONS / name).read_text(encoding="utf-8")
    blocks = scan(text, f"lessons/{name}")
    cells = [to_cell(block) for block in blocks if block.lang == CELL and not is_exercise(block)]
    quizzes = [block.body for block in blocks if block.lang == QUIZ]
    return Lesson(text, blocks, cells, quizzes)


def run_cells(cells: list[Cell]) -> LessonRun:
    """Run the cells in page order in one namespace, as the site does.

    Print options and figures are restored afterwards, so other tests see none of it.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict = {"__name__": "__main__"}
    printed, figures = [], []
    with np.printoptions():
        try:
            for n, cell in enumerate(cells):
                before = set(plt.get_fignums())
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(compile(_source(cell), f"<lesson cell {n + 1}>", "exec"), namespace)
                printed.append(out.getvalue())
                figures.append(len(set(plt.get_fignums()) - before))
        finally:
            plt.close("all")
    return LessonRun(namespace, printed, figures)


def _source(cell: Cell, key: tuple[int, ...] | None = None) -> str:
    """The cell's inputs bound (to combination ``key``, default: their defaults), its setup, its code."""
    inputs = bindings(cell.inputs, default_key(cell.inputs) if key is None else key) if cell.inputs else ""
    return f"{inputs}{cell.setup}\n{cell.code}"


@pytest.fixture(scope="session")
def lesson_reader() -> Callable[[str], Lesson]:
    """``read_lesson``: a lesson file name under lessons/ -> its text, blocks, cells and quizzes."""
    return read_lesson


@pytest.fixture(scope="session")
def lesson_runner() -> Callable[[list[Cell]], LessonRun]:
    """``run_cells``: run a lesson's cells in one namespace, as the build does."""
    return run_cells


@pytest.fixture(scope="session")
def cell_source() -> Callable[..., str]:
    """``source(cell, key=None)``: a cell's code, its inputs bound to ``key`` (default: the defaults)."""
    return _source
