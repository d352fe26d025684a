"""Run a page's cells at build time in CPython and keep their outputs.

The page's cells run in order in one namespace, in a child process (so a cell
cannot hang or pollute the build), through the same ``cell_exec`` module
that the browser's worker uses. Results are cached by the cells' text, the
posenc source and the runner, so an unchanged rebuild does not run anything.

The same child process proves a page's exercises (`PageRunner.prove`): each
solution must pass its check and each starter must fail it.

The child side is ``python -m course_site.execute``: it reads a JSON request on
stdin and writes a JSON reply on stdout.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import LessonError
from .exercises import Exercise
from .fences import Block, Cell

PY_ASSETS = Path(__file__).parent / "assets" / "py"  # the Python the browser also runs (cell_exec.py)
_FRAME = re.compile(r'File "<(?P<kind>cell|setup) (?P<n>\d+)>", line (?P<line>\d+)')
_EXERCISE_FRAME = re.compile(r'File "<exercise (?P<n>\d+) (?P<section>setup|solution|starter)>", line (?P<line>\d+)')


@dataclass(frozen=True)
class Output:
    """One piece of a cell's output: ``kind`` is stdout, stderr, result, error or figure."""

    kind: str
    text: str = ""
    png: bytes = b""

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Output:
        return cls(data["kind"], data.get("text", ""), base64.b64decode(data.get("png", "")))


class PageRunner:
    """Runs the cells of pages at build time, with a content-addressed cache."""

    def __init__(self, cache_dir: Path, source_dirs: list[Path], timeout: int, module_hint: str) -> None:
        """``source_dirs`` are package folders (``src/posenc``) the cells import;
        ``module_hint`` is the note on a ``ModuleNotFoundError`` (``{name}`` is the module)."""
        self.cache_dir = cache_dir / "outputs"
        self.source_dirs = source_dirs
        self.timeout = timeout
        self.module_hint = module_hint
        self._fingerprint = _fingerprint([PY_ASSETS, Path(__file__), *source_dirs], module_hint)

    def run(self, cells: list[Cell]) -> list[list[Output]]:
        """Return each cell's outputs (an empty list for ``execute="false"`` cells).

        Raises `LessonError` at the failing cell's Markdown line, with the traceback.
        """
        # Cells are numbered from 1 in page order, as in the browser: <cell 1>, <cell 2>, ...
        runnable = {n: cell for n, cell in enumerate(cells, start=1) if cell.options.execute}
        if not runnable:
            return [[] for _ in cells]
        key = self._key([(c.setup, c.code) for c in runnable.values()])
        reply = self._cached(key)
        if reply is None:
            reply = self._spawn(runnable)
            if reply.get("failed") is not None:
                raise _cell_error(runnable, reply["failed"], reply)
            self._store(key, reply)
        outputs = iter([[Output.from_json(o) for o in outs] for outs in reply["outputs"]])
        return [next(outputs) if cell.options.execute else [] for cell in cells]

    def prove(self, exercises: list[Exercise]) -> None:
        """Prove a page's exercises: each solution passes its check, each starter fails it.

        Each runs in a fresh namespace after its setup. Raises `LessonError` at
        the solution's (or the starter's) first line with the check's message,
        or where the setup or the solution raised, with the traceback.
        """
        if not exercises:
            return
        fields = ("setup", "starter", "check", "solution")
        sections = [{name: getattr(exercise, name) for name in fields} for exercise in exercises]
        key = self._key(["exercises", sections])
        if self._cached(key) is None:
            reply = self._call({"exercises": sections}, exercises[0].block, "exercises")
            _raise_unproven(exercises, reply["verdicts"])
            self._store(key, reply)

    def _key(self, content: list) -> str:
        text = json.dumps([self._fingerprint, content])
        return hashlib.sha256(text.encode()).hexdigest()

    def _cached(self, key: str) -> dict | None:
        path = self.cache_dir / f"{key}.json"
        return json.loads(path.read_text()) if path.exists() else None

    def _store(self, key: str, reply: dict) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_dir / f"{key}.tmp"
        tmp.write_text(json.dumps(reply))
        tmp.replace(self.cache_dir / f"{key}.json")

    def _spawn(self, cells: dict[int, Cell]) -> dict:
        request = {"cells": [{"number": n, "code": c.code, "setup": c.setup} for n, c in cells.items()]}
        return self._call(request, next(iter(cells.values())).block, "cells")

    def _call(self, request: dict, first: Block, what: str) -> dict:
        """The child's reply to ``request``; errors point at ``first``, the page's first of ``what``."""
        sys_path = [str(PY_ASSETS), *sorted({str(d.parent) for d in self.source_dirs})]
        request = {**request, "module_hint": self.module_hint}
        env = {**os.environ, "MPLBACKEND": "agg", "PYTHONHASHSEED": "0"}
        try:
            done = subprocess.run(
                [sys.executable, "-m", "course_site.execute"],
                input=json.dumps({**request, "sys_path": sys_path}),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LessonError(
                first.path,
                first.line,
                f"the page's {what} did not finish within {self.timeout} s at build time "
                "(raise execute_timeout in mkdocs.yml or fix the loop)",
            ) from None
        if done.returncode != 0:
            why = f"the cell runner crashed (exit status {done.returncode}; a cell calling os._exit ends it too)"
            raise LessonError(first.path, first.line, why, done.stderr)
        return json.loads(done.stdout)


def _fingerprint(paths: list[Path], module_hint: str) -> str:
    """Hash of the runner, the served sources, the module hint and the interpreter versions."""
    digest = hashlib.sha256(f"{platform.python_version()} {_versions()} {module_hint}".encode())
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in files:
            digest.update(path.as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("numpy", "matplotlib"):
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=none")
    return " ".join(found)


def _cell_error(cells: dict[int, Cell], failed: int, reply: dict) -> LessonError:
    """A `LessonError` at the Markdown line where cell number ``failed`` raised."""
    cell = cells[failed]
    frames = [m for m in _FRAME.finditer(reply["error"]) if int(m["n"]) == failed]
    line = _markdown_line(cells, frames[-1]) if frames else cell.code_line
    traceback = _FRAME.sub(
        lambda m: f'File "{cells[int(m["n"])].block.path}", line {_markdown_line(cells, m)}', reply["error"]
    )
    return LessonError(cell.block.path, line, f"cell {failed} of the page raised", traceback)


def _markdown_line(cells: dict[int, Cell], frame: re.Match[str]) -> int:
    """The Markdown line of a ``File "<cell N>", line L`` traceback frame."""
    cell = cells[int(frame["n"])]
    first = cell.code_line if frame["kind"] == "cell" else cell.setup_line
    return first + int(frame["line"]) - 1


def _raise_unproven(exercises: list[Exercise], verdicts: list[dict[str, dict]]) -> None:
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


# --- the child process -------------------------------------------------------------------


class _Capture(io.TextIOBase):
    """A text stream that appends what is written to the cell's outputs."""

    def __init__(self, kind: str, sink: Callable[[str, str], None]) -> None:
        self.kind, self.sink = kind, sink

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.sink(self.kind, text)
        return len(text)


def _run_cells(cells: list[dict[str, str]], module_hint: str) -> dict:
    """Run cells in one namespace; stop at the first that raises."""
    from cell_exec import install_input_guard, run_cells, set_module_hint

    install_input_guard()
    set_module_hint(module_hint)
    namespace: dict[str, object] = {"__name__": "__main__"}
    # One event loop for the page, as in a notebook: a task started by one cell can be awaited in a later one.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    replies: list[list[dict[str, str]]] = []
    for cell in cells:
        n = cell["number"]
        outputs: list[dict[str, str]] = []
        errors: list[str] = []
        replies.append(outputs)

        def emit(kind: str, payload: object, outputs=outputs, errors=errors) -> None:
            if kind == "figure":
                assert isinstance(payload, dict)
                png = base64.b64encode(payload["png"]).decode("ascii")
                outputs.append({"kind": "figure", "text": payload["alt"], "png": png})
                return
            text = str(payload)
            if kind == "error":
                errors.append(text)
            if kind in ("stdout", "stderr") and outputs and outputs[-1]["kind"] == kind:
                outputs[-1]["text"] += text
            else:
                outputs.append({"kind": kind, "text": text})

        sys.stdout, sys.stderr = _Capture("stdout", emit), _Capture("stderr", emit)
        sources = [(cell["setup"], f"<setup {n}>")] if cell["setup"].strip() else []
        sources.append((cell["code"], f"<cell {n}>"))
        try:
            outcome = run_cells(sources, namespace, emit=emit)
            ok = outcome if isinstance(outcome, bool) else loop.run_until_complete(outcome)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        if not ok:
            return {"outputs": replies, "failed": n, "error": "\n".join(errors)}
    return {"outputs": replies}


def _prove_exercises(exercises: list[dict[str, str]], module_hint: str) -> dict:
    """The check's verdict on each exercise's solution and starter, each after the setup."""
    from cell_exec import install_input_guard, run_cell, set_module_hint
    from exercise_check import CODE_RAISED, SETUP_RAISED, run_exercise

    install_input_guard()
    set_module_hint(module_hint)
    verdicts = []
    for n, exercise in enumerate(exercises, start=1):
        verdict = {}
        for variant in ("solution", "starter"):
            errors: list[str] = []
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                result = run_exercise(
                    exercise["setup"],
                    exercise[variant],
                    exercise["check"],
                    run_cell=run_cell,
                    emit=lambda kind, payload, errors=errors: errors.append(str(payload)) if kind == "error" else None,
                    setup_file=f"<exercise {n} setup>",
                    code_file=f"<exercise {n} {variant}>",
                )
            raised = {SETUP_RAISED: "setup", CODE_RAISED: variant}.get(result.message, "")
            verdict[variant] = {
                "passed": result.passed,
                "message": result.message,
                "raised": raised,
                "error": "\n".join(errors),
            }
        verdicts.append(verdict)
    return {"verdicts": verdicts}


def main() -> None:
    request = json.load(sys.stdin)
    sys.path[:0] = request["sys_path"]
    if "exercises" in request:
        reply = _prove_exercises(request["exercises"], request["module_hint"])
    else:
        reply = _run_cells(request["cells"], request["module_hint"])
    json.dump(reply, sys.__stdout__)


if __name__ == "__main__":
    main()
