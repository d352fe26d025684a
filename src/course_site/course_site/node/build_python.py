"""The Python half of the build's Python under Node: runs inside the site's Pyodide, under Node.

``build_python.mjs`` writes this file into Pyodide's file system (as ``course_build_python.py``) next to
the package ``course_kernel`` (the Python the browser's worker runs), calls `start` once for the
build's `Session` (both colour schemes, the course's module hint), then `run` for each cell of a
page, in order, in ``__main__``'s namespace as the worker does, and `prove` for the page's
exercises, each with that session. Not imported by CPython.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import __main__
from course_kernel import strings
from course_kernel.cell_exec import Outcome, Session, install_input_guard, module_references, run_cell, run_cells
from course_kernel.exercise_check import run_exercise
from course_kernel.figure_style import SCHEMES

JsEmit = Callable[[str, str, str, str, float], None]
"""(kind, text, a figure's base64 PNG, its dark one, the font size of its smallest text in the PNG)"""


def start(module_hint: str, messages: str) -> Session:
    """Set up Python as the worker does (matplotlib's backend, no input(), the site's words from the JSON
    ``messages``); the build's session for its runs: every figure in both colour schemes (the page shows
    the one in use) and the course's module hint."""
    os.environ["MPLBACKEND"] = "agg"
    install_input_guard()
    strings.use(json.loads(messages))
    return Session(schemes=SCHEMES, module_hint=module_hint)


def extra_packages(code: str, import_packages: dict[str, list[str]]) -> list[str]:
    """Lock packages that the modules ``code`` uses need beyond what an import scan shows."""
    return sorted({package for name in module_references(code) for package in import_packages.get(name, ())})


def install_font_list(font_list: str) -> None:
    """Install the site's prebuilt matplotlib font list, as the worker does before the first import."""
    import importlib.util

    Path(importlib.util.find_spec("matplotlib").origin).with_name("fontlist.json").write_text(font_list)


def run(number: int, setup: str, code: str, emit: JsEmit, session: Session, inputs: str = "", alt: str = "") -> Outcome:
    """Run cell ``number`` (its inputs' bindings and hidden setup first) in the page's namespace, its
    figures with the fence's ``alt`` text: True, False, or a coroutine."""
    sources = [(inputs, f"<inputs {number}>")] if inputs else []
    sources += [(setup, f"<setup {number}>")] if setup.strip() else []
    sources.append((code, f"<cell {number}>"))
    in_session = dataclasses.replace(session, alt=alt)
    return run_cells(
        sources, __main__.__dict__, emit=lambda kind, payload: _emit(emit, kind, payload), session=in_session
    )


def _emit(emit: JsEmit, kind: str, payload: object) -> None:
    if kind == "figure":
        assert isinstance(payload, dict)
        png, dark = (base64.b64encode(payload.get(key, b"")).decode("ascii") for key in ("png", "png_dark"))
        emit(kind, payload["alt"], png, dark, payload["text_px"])
    else:
        emit(kind, str(payload), "", "", 0.0)


def prove(exercises_json: str, session: Session) -> str:
    """The check's verdict on each exercise's solution and starter, each after the setup, as JSON."""
    verdicts = []
    for n, exercise in enumerate(json.loads(exercises_json), start=1):
        verdicts.append({variant: _verdict(exercise, variant, n, session) for variant in ("solution", "starter")})
    return json.dumps(verdicts)


def _verdict(exercise: dict[str, str], variant: str, number: int, session: Session) -> dict:
    errors: list[str] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        result = run_exercise(
            exercise["setup"],
            exercise[variant],
            exercise["check"],
            run_cell=functools.partial(run_cell, session=session),
            emit=lambda kind, payload: errors.append(str(payload)) if kind == "error" else None,
            setup_file=f"<exercise {number} setup>",
            code_file=f"<exercise {number} {variant}>",
        )
    raised = {"setup": "setup", "code": variant}.get(result.stage, "")
    return {"passed": result.passed, "message": result.message, "raised": raised, "error": "\n".join(errors)}
