"""A build-time run's failures as `LessonError`s at the lesson's lines: a cell's traceback, an exercise
that is not proved, a Node process that stopped early."""

from __future__ import annotations

import json
import re

from .errors import LessonError
from .exercises import Exercise
from .fences import Block, Cell
from .node_process import STARTUP_TIMEOUT, NodeStopped

_FRAME = re.compile(r'File "<(?P<kind>cell|setup) (?P<n>\d+)>", line (?P<line>\d+)')
_EXERCISE_FRAME = re.compile(r'File "<exercise (?P<n>\d+) (?P<section>setup|solution|starter)>", line (?P<line>\d+)')


def node_error(stopped: NodeStopped, cells: dict[int, Cell], exercises: list[Exercise], timeout: int) -> LessonError:
    """The error when Node stopped before the page's work was done (`node_process.page_messages`).

    Before any cell starts it points at the page's first cell (or exercise, once they are being
    proved); when the time is up, at the cell still running.
    """
    blocks = {n: c.block for n, c in cells.items()}
    if stopped.proving:
        first, running_cells = exercises[0].block, None
    else:
        first, running_cells = (blocks[min(blocks)] if blocks else exercises[0].block), cells or None
    if stopped.how == "timed out":
        return _timed_out(first, stopped.running, running_cells, timeout, ready=stopped.ready)
    block = blocks[stopped.running] if stopped.running else first
    if stopped.how == "exit":
        return _exited(block, stopped.running, stopped.status)
    return _ended(block, stopped.running, stopped.status, stopped.error)


def _timed_out(
    first: Block, running: int | None, cells: dict[int, Cell] | None, timeout: int, *, ready: bool
) -> LessonError:
    """The error when time ran out: at the cell that was running, else at the page's first block."""
    if not ready:
        return LessonError(
            first.path, first.line, f"Python (the site's Pyodide under Node) did not start within {STARTUP_TIMEOUT} s"
        )
    if cells is None or running is None:
        return LessonError(
            first.path,
            first.line,
            f"the page's exercises were still running after {timeout} s at build time (an endless loop in a "
            "setup, check, starter or solution?): fix it, or raise `execute_timeout` under `plugins: - course:`",
        )
    cell = cells[running]
    return LessonError(
        cell.block.path,
        cell.code_line,
        f"cell {running} of the page was still running after {timeout} s at build time "
        '(an endless loop, or too much work?): make it faster, mark its fence execute="false", '
        "or raise `execute_timeout` under `plugins: - course:` in mkdocs.yml",
    )


def _exited(block: Block, running: int | None, status: int) -> LessonError:
    where = f"cell {running} of the page" if running else "the page's code"
    return LessonError(
        block.path,
        block.line,
        f"{where} ended Python (exit status {status}, as os._exit does); the browser would restart Python "
        "and lose the page's namespace: raise an exception instead",
    )


def _ended(block: Block, running: int | None, status: int, error: str) -> LessonError:
    """The error when Node ended early: at the cell that ran (too much memory, a crash in Pyodide)."""
    where = f"while cell {running} of the page ran (too much memory?)" if running else "before any cell ran"
    return LessonError(
        block.path,
        block.line,
        f"the build-time Python (Pyodide under Node) stopped {where}, exit status {status}: {error}",
    )


def shipped_versions(lock_text: str, preload: list[str]) -> str:
    """What a cell runs in, for the author: Pyodide, its Python, numpy, matplotlib and the preloaded packages."""
    lock = json.loads(lock_text)
    packages = lock["packages"]
    names = [name for name in dict.fromkeys(["numpy", "matplotlib", *preload]) if name in packages]
    listed = ", ".join(f"{name} {packages[name]['version']}" for name in names)
    return f"Pyodide {lock['info']['version']} (Python {lock['info']['python']}) with {listed}"


def cell_error(cells: dict[int, Cell], failed: int, error: str, versions: str, inputs: str = "") -> LessonError:
    """A `LessonError` at the Markdown line where cell number ``failed`` raised.

    The hint says that cells run in the learner's Python: ``versions`` names it; ``inputs``, the
    values of the cell's inputs it ran with.
    """
    cell = cells[failed]
    frames = [m for m in _FRAME.finditer(error) if int(m["n"]) == failed]
    line = _markdown_line(cells, frames[-1]) if frames else cell.code_line
    traceback = _FRAME.sub(lambda m: f'File "{cells[int(m["n"])].block.path}", line {_markdown_line(cells, m)}', error)
    hint = (
        f"Cells run at build time in the Python a learner's browser runs, {versions}: an API newer than "
        "these, or a module the site does not ship, fails here as it would for every learner."
    )
    what = f"cell {failed} of the page raised" + (f" with its inputs {inputs}" if inputs else "")
    return LessonError(cell.block.path, line, what, f"{traceback.rstrip()}\n{hint}")


def _markdown_line(cells: dict[int, Cell], frame: re.Match[str]) -> int:
    """The Markdown line of a ``File "<cell N>", line L`` traceback frame."""
    cell = cells[int(frame["n"])]
    first = cell.code_line if frame["kind"] == "cell" else cell.setup_line
    return first + int(frame["line"]) - 1


def raise_unproven(exercises: list[Exercise], verdicts: list[dict[str, dict]]) -> None:
    """Raise `LessonError` for the first exercise whose solution fails or whose starter passes."""
    for number, (exercise, verdict) in enumerate(zip(exercises, verdicts, strict=True), start=1):
        solution, starter = verdict["solution"], verdict["starter"]
        name = f'exercise "{exercise.title}"'
        if solution["raised"]:
            raise _exercise_error(exercise, number, solution, f"the {solution['raised']} of {name} raised")
        if not solution["passed"]:
            raise LessonError(
                exercise.path, exercise.solution_line, f"the solution of {name} fails its check: {solution['message']}"
            )
        if starter["passed"]:
            raise LessonError(
                exercise.path,
                exercise.starter_line,
                f"the starter code of {name} already passes its check; it must fail it, "
                "so that the learner has something to do",
            )


def _exercise_error(exercise: Exercise, number: int, verdict: dict, message: str) -> LessonError:
    """A `LessonError` at the Markdown line that raised, with the traceback's frames on Markdown lines."""
    first_lines = {"setup": exercise.setup_line, "solution": exercise.solution_line, "starter": exercise.starter_line}

    def markdown_line(frame: re.Match[str]) -> int:
        return first_lines[frame["section"]] + int(frame["line"]) - 1

    frames = [m for m in _EXERCISE_FRAME.finditer(verdict["error"]) if int(m["n"]) == number]
    line = markdown_line(frames[-1]) if frames else first_lines[verdict["raised"]]
    traceback = _EXERCISE_FRAME.sub(lambda m: f'File "{exercise.path}", line {markdown_line(m)}', verdict["error"])
    return LessonError(exercise.path, line, message, traceback)
